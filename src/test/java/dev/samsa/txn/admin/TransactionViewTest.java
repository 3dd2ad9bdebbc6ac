package dev.samsa.txn.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.samsa.GroupPartition;
import dev.samsa.KafkaCluster;
import dev.samsa.TransactionView;
import dev.samsa.TxnState;
import dev.samsa.time.ClusterClock;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** {@code cluster.transaction(id)}: the coordinator's view of a transactional id, read without touching the cluster. */
class TransactionViewTest {

    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

    @Test
    void showsTheOpenTransactionWithItsPartitionsPendingOffsetsAndStartThenItsCommit() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).topic("orders", 2, 3)
                .brokerConfig("transaction.state.log.num.partitions", "5").clock(ClusterClock.manual(START)).start();
                KafkaProducer<String, String> producer = TransactionAdminTest.producer(cluster, "view-tx")) {
            producer.initTransactions();
            assertThat(cluster.transaction("view-tx").state()).isEqualTo(TxnState.EMPTY);

            producer.beginTransaction();
            producer.send(new ProducerRecord<>("orders", 1, "k", "v")).get();
            producer.sendOffsetsToTransaction(Map.of(new TopicPartition("orders", 0), new OffsetAndMetadata(42)),
                    new ConsumerGroupMetadata("billing"));

            TransactionView open = cluster.transaction("view-tx");
            assertThat(open.state()).as("%s", open).isEqualTo(TxnState.ONGOING);
            assertThat(open.producerEpoch()).as("%s", open).isZero();
            assertThat(open.producerId()).as("%s", open).isNotNegative();
            assertThat(open.timeoutMs()).isEqualTo(600_000);
            assertThat(open.partitions()).as("%s", open).contains(new GroupPartition("orders", 1))
                    .anyMatch(p -> p.topic().equals("__consumer_offsets")).hasSize(2);
            assertThat(open.pendingOffsets()).as("%s", open)
                    .containsExactlyEntriesOf(Map.of("billing", new java.util.TreeSet<>(java.util.Set.of(new GroupPartition("orders", 0)))));
            // The clock never moved: the transaction started at the cluster's first instant.
            assertThat(open.startTime()).isEqualTo(Optional.of(START));
            // Kafka's routing: the leader of __transaction_state partition abs(hash) % partitions.
            int partition = org.apache.kafka.common.utils.Utils.abs("view-tx".hashCode()) % 5;
            assertThat(open.coordinator()).isEqualTo(cluster.partition("__transaction_state", partition).leader());

            producer.commitTransaction();
            await().atMost(10, TimeUnit.SECONDS).untilAsserted(() -> {
                TransactionView committed = cluster.transaction("view-tx");
                assertThat(committed.state()).as("%s", committed).isEqualTo(TxnState.COMPLETE_COMMIT);
                assertThat(committed.partitions()).as("%s", committed).isEmpty();
                assertThat(committed.pendingOffsets()).as("%s", committed).isEmpty();
            });
        }
    }

    @Test
    void anUnknownIdIsDeadAndReadingItCreatesNoTransactionStateTopic() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(1).start(); Admin admin = Admin.create(cluster.adminConfig())) {
            TransactionView unknown = cluster.transaction("never-seen");

            assertThat(unknown.state()).isEqualTo(TxnState.DEAD);
            assertThat(unknown.producerId()).isEqualTo(-1);
            assertThat(unknown.coordinator()).isEqualTo(-1);
            assertThat(admin.listTopics(new ListTopicsOptions().listInternal(true)).names().get())
                    .as("a pure read creates nothing").doesNotContain("__transaction_state");
        }
    }
}
