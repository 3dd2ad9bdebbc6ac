package dev.samsa.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.samsa.GroupPartition;
import dev.samsa.KafkaCluster;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code sendOffsetsToTransaction} with the real producer and consumer (KIP-447): the group member's offsets stay
 * pending while the transaction is open, so the consumer's {@code committed()} (which always asks with requireStable)
 * gets UNSTABLE_OFFSET_COMMIT, retries, and gives up at its timeout; once the transaction commits the offsets are the
 * group's, once it aborts the old ones stay. Under transaction version 1 (AddOffsetsToTxn, then TxnOffsetCommit v4)
 * and 2 (TxnOffsetCommit v5 adds the group's partition itself; the epoch is bumped at every end).
 */
class TransactionalOffsetsClientTest {

    private static final TopicPartition ORDERS = new TopicPartition("orders", 0);

    private static KafkaProducer<String, String> transactionalProducer(KafkaCluster cluster, String transactionalId) {
        Map<String, Object> config = cluster.producerConfig();
        config.put("transactional.id", transactionalId);
        config.put("max.block.ms", "20000");
        return new KafkaProducer<>(config);
    }

    /** A member of {@code group} that owns "orders"-0, so its metadata carries a real member id and generation. */
    private static KafkaConsumer<String, String> member(KafkaCluster cluster, String group) {
        KafkaConsumer<String, String> consumer = GroupClients.consumer(cluster, group, "orders", Map.of());
        Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> {
            consumer.poll(Duration.ofMillis(100));
            return consumer.assignment().contains(ORDERS);
        });
        return consumer;
    }

    /** Another consumer of the group, not a member: reads the committed offsets as the client reads them. */
    private static KafkaConsumer<String, String> observer(KafkaCluster cluster, String group) {
        Map<String, Object> config = cluster.consumerConfig(group);
        config.put("enable.auto.commit", "false");
        return new KafkaConsumer<>(config);
    }

    @ParameterizedTest(name = "transaction.version {0}")
    @ValueSource(ints = {1, 2})
    void offsetsSentToATransactionAreUnstableUntilItCommits(int transactionVersion) {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).transactionVersion(transactionVersion).topic("orders", 1, 3).start();
             KafkaProducer<String, String> producer = transactionalProducer(cluster, "tx-billing");
             KafkaConsumer<String, String> observer = observer(cluster, "billing")) {
            KafkaConsumer<String, String> consumer = member(cluster, "billing");
            try {
                ConsumerGroupMetadata metadata = consumer.groupMetadata();
                assertThat(metadata.generationId()).as("a member with a generation (TxnOffsetCommit v3+ checks it)").isPositive();
                producer.initTransactions();
                producer.beginTransaction();
                producer.send(new ProducerRecord<>("orders", "out"));
                producer.sendOffsetsToTransaction(Map.of(ORDERS, new OffsetAndMetadata(3, "m")), metadata);
                producer.flush();

                assertThatThrownBy(() -> observer.committed(Set.of(ORDERS), Duration.ofSeconds(1)))
                        .as("committed() while the transaction is open").isInstanceOf(TimeoutException.class);
                assertThat(cluster.group("billing").committed()).as("the group's view").isEmpty();
                assertThat(cluster.group("billing").pendingTransactionalOffsets()).containsExactly(new GroupPartition("orders", 0));

                producer.commitTransaction();
                assertThat(cluster.group("billing").pendingTransactionalOffsets()).isEmpty();

                Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                        assertThat(observer.committed(Set.of(ORDERS), Duration.ofSeconds(5)).get(ORDERS))
                                .isEqualTo(new OffsetAndMetadata(3, java.util.Optional.empty(), "m")));
            } finally {
                GroupClients.closeQuietly(consumer);
            }
        }
    }

    @ParameterizedTest(name = "transaction.version {0}")
    @ValueSource(ints = {1, 2})
    void anAbortedTransactionLeavesTheOffsetsCommittedBefore(int transactionVersion) {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).transactionVersion(transactionVersion).topic("orders", 1, 3).start();
             KafkaProducer<String, String> producer = transactionalProducer(cluster, "tx-billing");
             KafkaConsumer<String, String> observer = observer(cluster, "billing")) {
            KafkaConsumer<String, String> consumer = member(cluster, "billing");
            try {
                consumer.commitSync(Map.of(ORDERS, new OffsetAndMetadata(1)));
                producer.initTransactions();
                producer.beginTransaction();
                producer.sendOffsetsToTransaction(Map.of(ORDERS, new OffsetAndMetadata(3)), consumer.groupMetadata());

                producer.abortTransaction();

                Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                        assertThat(observer.committed(Set.of(ORDERS), Duration.ofSeconds(5)).get(ORDERS).offset()).isEqualTo(1));
                assertThat(cluster.group("billing").committed().values()).containsExactly(1L);
            } finally {
                GroupClients.closeQuietly(consumer);
            }
        }
    }

    @Test
    void aMemberOfAConsumerProtocolGroupCommitsInATransactionWithItsMemberEpoch() {
        try (KafkaCluster cluster = KafkaCluster.builder().topic("orders", 1, 1).start();
             KafkaProducer<String, String> producer = transactionalProducer(cluster, "tx-billing");
             KafkaConsumer<String, String> observer = observer(cluster, "billing")) {
            // KIP-848: the member's metadata carries its member epoch where a classic member's has the generation.
            Map<String, Object> config = cluster.consumerConfig("billing");
            config.put("group.protocol", "consumer");
            config.put("enable.auto.commit", "false");
            KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config);
            consumer.subscribe(List.of("orders"));
            try {
                Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> {
                    consumer.poll(Duration.ofMillis(100));
                    return consumer.assignment().contains(ORDERS);
                });
                ConsumerGroupMetadata current = consumer.groupMetadata();
                producer.initTransactions();
                producer.beginTransaction();
                assertThatThrownBy(() -> producer.sendOffsetsToTransaction(Map.of(ORDERS, new OffsetAndMetadata(2)),
                        new ConsumerGroupMetadata(current.groupId(), current.generationId() + 1, current.memberId(),
                                current.groupInstanceId())))
                        .as("an epoch that is not the member's").isInstanceOf(org.apache.kafka.clients.consumer.CommitFailedException.class);
                producer.abortTransaction();

                producer.beginTransaction();
                producer.sendOffsetsToTransaction(Map.of(ORDERS, new OffsetAndMetadata(3)), consumer.groupMetadata());
                producer.commitTransaction();

                Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                        assertThat(observer.committed(Set.of(ORDERS), Duration.ofSeconds(5)).get(ORDERS).offset()).isEqualTo(3));
            } finally {
                GroupClients.closeQuietly(consumer);
            }
        }
    }

    @Test
    void pendingOffsetsSurviveACrashOfTheGroupCoordinatorAndCommitOnTheNextOne() {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).brokerConfig("offsets.topic.num.partitions", "1")
                .topic("orders", 1, 3).start();
             KafkaProducer<String, String> producer = transactionalProducer(cluster, "tx-billing");
             KafkaConsumer<String, String> observer = observer(cluster, "billing")) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>("orders", "out"));
            // A simple consumer's metadata: no member, no generation.
            producer.sendOffsetsToTransaction(Map.of(ORDERS, new OffsetAndMetadata(3)), new ConsumerGroupMetadata("billing"));
            producer.flush();

            int coordinator = cluster.partition("__consumer_offsets", 0).leader();
            cluster.broker(coordinator).crash();
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> {
                int leader = cluster.partition("__consumer_offsets", 0).leader();
                return leader > 0 && leader != coordinator;
            });

            assertThat(cluster.group("billing").pendingTransactionalOffsets()).as("replayed by the new coordinator:\n%s",
                    cluster.events()).containsExactly(new GroupPartition("orders", 0));
            assertThatThrownBy(() -> observer.committed(Set.of(ORDERS), Duration.ofSeconds(1))).isInstanceOf(TimeoutException.class);

            producer.commitTransaction();

            Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                    assertThat(observer.committed(Set.of(ORDERS), Duration.ofSeconds(5)).get(ORDERS).offset()).isEqualTo(3));
        }
    }

    @Test
    void aMemberOfAnOlderGenerationCannotCommitInATransaction() {
        try (KafkaCluster cluster = KafkaCluster.builder().topic("orders", 1, 1).start();
             KafkaProducer<String, String> producer = transactionalProducer(cluster, "tx-billing")) {
            KafkaConsumer<String, String> consumer = member(cluster, "billing");
            try {
                ConsumerGroupMetadata current = consumer.groupMetadata();
                ConsumerGroupMetadata stale = new ConsumerGroupMetadata(current.groupId(), current.generationId() - 1,
                        current.memberId(), current.groupInstanceId());
                producer.initTransactions();
                producer.beginTransaction();

                // ILLEGAL_GENERATION: the Java producer names it CommitFailedException and the transaction must abort.
                assertThatThrownBy(() -> producer.sendOffsetsToTransaction(Map.of(ORDERS, new OffsetAndMetadata(3)), stale))
                        .isInstanceOf(org.apache.kafka.clients.consumer.CommitFailedException.class);
                producer.abortTransaction();
                assertThat(cluster.group("billing").committed()).isEmpty();
            } finally {
                GroupClients.closeQuietly(consumer);
            }
        }
    }
}
