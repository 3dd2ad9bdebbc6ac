package dev.samsa.txn.tv2;

import dev.samsa.txn.TxnClients;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.samsa.Api;
import dev.samsa.KafkaCluster;
import dev.samsa.RequestInterceptor;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code sendOffsetsToTransaction} under each transaction version: with version 2 the producer sends TxnOffsetCommit
 * v5 or later (a 4.4 producer v6, by topic id) and no AddOffsetsToTxn (the group coordinator has the transaction coordinator add {@code __consumer_offsets}),
 * below it AddOffsetsToTxn and then TxnOffsetCommit v4; either way a commit makes the offsets the group's and an abort
 * leaves the ones before.
 */
class OffsetsInTransactionVersionTest {

    private static final TopicPartition ORDERS = new TopicPartition("orders", 0);

    @ParameterizedTest(name = "transaction.version={0}")
    @ValueSource(ints = {2, 1})
    void offsetsCommitWithTheTransactionAndStayBehindOnAbort(int level) {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).transactionVersion(level).topic("orders", 1, 3).start();
             KafkaProducer<String, String> producer = TxnClients.transactionalProducer(cluster, "tx-offsets");
             KafkaConsumer<String, String> member = member(cluster)) {
            Queue<RequestInterceptor.Request> requests = TxnClients.recordRequests(cluster, Api.ADD_OFFSETS_TO_TXN,
                    Api.TXN_OFFSET_COMMIT);
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>("orders", "out-1"));
            producer.sendOffsetsToTransaction(Map.of(ORDERS, new OffsetAndMetadata(3)), member.groupMetadata());
            producer.commitTransaction();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>("orders", "out-2"));
            producer.sendOffsetsToTransaction(Map.of(ORDERS, new OffsetAndMetadata(7)), member.groupMetadata());
            producer.abortTransaction();

            if (level >= 2) {
                assertThat(TxnClients.versions(requests, Api.ADD_OFFSETS_TO_TXN)).isEmpty();
                assertThat(TxnClients.versions(requests, Api.TXN_OFFSET_COMMIT)).hasSizeGreaterThanOrEqualTo(2).containsOnly((short) 6);
            } else {
                // One per transaction, and again when the previous commit is still completing (CONCURRENT_TRANSACTIONS).
                assertThat(TxnClients.versions(requests, Api.ADD_OFFSETS_TO_TXN)).hasSizeGreaterThanOrEqualTo(2);
                assertThat(TxnClients.versions(requests, Api.TXN_OFFSET_COMMIT)).hasSizeGreaterThanOrEqualTo(2).containsOnly((short) 4);
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> cluster.group("billing").pendingTransactionalOffsets().isEmpty());
            assertThat(member.committed(Set.of(ORDERS), Duration.ofSeconds(5)).get(ORDERS).offset()).isEqualTo(3);
            assertThat(TxnClients.readAll(cluster, "orders", "read_committed")).containsExactly("out-1");
        }
    }

    /** A member of "billing" that owns "orders"-0, so its group metadata carries a member id and generation. */
    private static KafkaConsumer<String, String> member(KafkaCluster cluster) {
        Map<String, Object> config = cluster.consumerConfig("billing");
        config.put("enable.auto.commit", "false");
        config.put("isolation.level", "read_committed");
        KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config);
        consumer.subscribe(List.of("orders"));
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            consumer.poll(Duration.ofMillis(100));
            return consumer.assignment().contains(ORDERS);
        });
        // The consumer's own OffsetFetch for its new partition may still be in flight, and KafkaConsumer.committed()
        // reuses an outstanding fetch of the same partitions: its answer, from before any transaction, would be "none".
        consumer.position(ORDERS, Duration.ofSeconds(10));
        return consumer;
    }
}
