package dev.samsa.txn.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.samsa.GroupPartition;
import dev.samsa.KafkaCluster;
import dev.samsa.TransactionView;
import dev.samsa.TxnState;
import dev.samsa.event.BrokerStopped;
import dev.samsa.event.ClusterEvent;
import dev.samsa.event.TimedEvent;
import dev.samsa.event.TxnMarkerWritten;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * The transaction faults on three brokers with real clients: markers held for a partition or a leader (a torn
 * transaction, visible at read_committed on some partitions and not others), then a leader crash and the release; and
 * the coordinator crashed or isolated right after it replicates its decision. Each ends with read_committed seeing
 * every committed record exactly once.
 */
class TransactionFaultsTest {

    private static final String TOPIC = "ledger";

    private static KafkaCluster cluster() {
        return KafkaCluster.builder().brokers(3).topic(TOPIC, 3, 3).start();
    }

    /** One committed transaction of two records per partition: a-0, b-0 to partition 0, a-1, b-1 to partition 1, ... */
    private static List<String> commitOneTransaction(KafkaProducer<String, String> producer) throws Exception {
        producer.initTransactions();
        producer.beginTransaction();
        List<String> sent = new ArrayList<>();
        for (String prefix : List.of("a", "b")) {
            for (int p = 0; p < 3; p++) {
                producer.send(new ProducerRecord<>(TOPIC, p, "k", prefix + "-" + p)).get();
                sent.add(prefix + "-" + p);
            }
        }
        producer.commitTransaction();
        return sent;
    }

    @Test
    void aHeldMarkerTearsTheTransactionAndAfterTheLeaderCrashesAndTheMarkerIsReleasedEveryRecordIsSeenOnce() throws Exception {
        try (KafkaCluster cluster = cluster(); KafkaProducer<String, String> producer = TransactionAdminTest.producer(cluster, "torn-tx")) {
            cluster.faults().holdTransactionMarkers(TOPIC, 0);
            List<String> committed = commitOneTransaction(producer);

            // Partitions 1 and 2 have their COMMIT marker (two records and the marker); partition 0 waits for its own.
            await().atMost(10, TimeUnit.SECONDS).untilAsserted(() -> {
                assertThat(cluster.partition(TOPIC, 1).lastStableOffset()).isEqualTo(3);
                assertThat(cluster.partition(TOPIC, 2).lastStableOffset()).isEqualTo(3);
            });
            assertThat(cluster.partition(TOPIC, 0).lastStableOffset()).as("held: the open transaction pins the LSO").isZero();
            TransactionView torn = cluster.transaction("torn-tx");
            assertThat(torn.state()).isEqualTo(TxnState.PREPARE_COMMIT);
            assertThat(torn.partitions()).as("only the held partition still owes its marker: %s", torn)
                    .containsExactly(new GroupPartition(TOPIC, 0));
            try (Admin admin = Admin.create(cluster.adminConfig())) {
                assertThat(admin.describeTransactions(List.of("torn-tx")).description("torn-tx").get().topicPartitions())
                        .as("DescribeTransactions lists what still waits for a marker").containsExactly(new TopicPartition(TOPIC, 0));
            }
            assertThat(readCommitted(cluster)).as("a torn transaction: partition 0's records are not visible yet")
                    .containsExactlyInAnyOrder("a-1", "b-1", "a-2", "b-2");

            int oldLeader = cluster.partition(TOPIC, 0).leader();
            cluster.broker(oldLeader).crash();
            cluster.faults().releaseTransactionMarkers(TOPIC, 0);

            await().atMost(10, TimeUnit.SECONDS).untilAsserted(() ->
                    assertThat(cluster.transaction("torn-tx").state()).isEqualTo(TxnState.COMPLETE_COMMIT));
            TxnMarkerWritten marker = cluster.events().events(TxnMarkerWritten.class).stream()
                    .filter(m -> m.partition() == 0).findFirst().orElseThrow();
            assertThat(marker.leader()).as("the released marker went to the new leader").isNotEqualTo(oldLeader);
            assertThat(readCommitted(cluster)).containsExactlyInAnyOrderElementsOf(committed);
        }
    }

    @Test
    void markersHeldForALeaderWaitOnEveryPartitionItLeadsUntilReleased() throws Exception {
        try (KafkaCluster cluster = cluster(); KafkaProducer<String, String> producer = TransactionAdminTest.producer(cluster, "held-tx")) {
            int held = cluster.partition(TOPIC, 0).leader();
            cluster.faults().holdTransactionMarkers(held);
            List<String> committed = commitOneTransaction(producer);

            await().atMost(10, TimeUnit.SECONDS).untilAsserted(() -> {
                for (int p = 0; p < 3; p++) {
                    var partition = cluster.partition(TOPIC, p);
                    assertThat(partition.lastStableOffset()).as("%s, held leader %s", partition, held)
                            .isEqualTo(partition.leader() == held ? 0 : 3);
                }
            });
            assertThat(cluster.transaction("held-tx").state()).isEqualTo(TxnState.PREPARE_COMMIT);

            cluster.faults().releaseTransactionMarkers(held);
            await().atMost(10, TimeUnit.SECONDS).untilAsserted(() ->
                    assertThat(cluster.transaction("held-tx").state()).isEqualTo(TxnState.COMPLETE_COMMIT));
            assertThat(readCommitted(cluster)).containsExactlyInAnyOrderElementsOf(committed);
        }
    }

    @Test
    void theCoordinatorCrashedRightAfterPrepareCommitIsReplicatedIsSucceededByOneThatFinishesTheCommit() throws Exception {
        try (KafkaCluster cluster = cluster(); KafkaProducer<String, String> producer = TransactionAdminTest.producer(cluster, "crash-tx")) {
            cluster.faults().crashTransactionCoordinator("crash-tx", TxnState.PREPARE_COMMIT);
            List<String> committed = commitOneTransaction(producer);

            int crashed = cluster.brokers().stream().filter(b -> !b.isRunning()).findFirst().orElseThrow().id();
            // The crash came before any marker: every marker is its successor's.
            List<ClusterEvent> events = cluster.events().events().stream().map(TimedEvent::event)
                    .filter(e -> e instanceof BrokerStopped || e instanceof TxnMarkerWritten).toList();
            assertThat(events.get(0)).isEqualTo(new BrokerStopped(crashed, "CRASH"));
            await().atMost(10, TimeUnit.SECONDS).untilAsserted(() -> {
                var view = cluster.transaction("crash-tx");
                assertThat(view.state()).as("%s", view).isEqualTo(TxnState.COMPLETE_COMMIT);
                assertThat(view.coordinator()).as("%s", view).isNotEqualTo(crashed);
            });
            assertThat(readCommitted(cluster)).containsExactlyInAnyOrderElementsOf(committed);
        }
    }

    @Test
    void theCoordinatorIsolatedRightAfterPrepareAbortIsSucceededByOneThatFinishesTheAbort() throws Exception {
        try (KafkaCluster cluster = cluster(); KafkaProducer<String, String> producer = TransactionAdminTest.producer(cluster, "isolated-tx")) {
            cluster.faults().isolateTransactionCoordinator("isolated-tx", TxnState.PREPARE_ABORT);
            producer.initTransactions();
            producer.beginTransaction();
            for (int p = 0; p < 3; p++) {
                producer.send(new ProducerRecord<>(TOPIC, p, "k", "aborted-" + p)).get();
            }
            producer.abortTransaction();

            await().atMost(10, TimeUnit.SECONDS).untilAsserted(() ->
                    assertThat(cluster.transaction("isolated-tx").state()).isEqualTo(TxnState.COMPLETE_ABORT));
            // Every partition's leader is reachable again (the isolated broker led none after the fence): the LSO moved.
            IntStream.range(0, 3).forEach(p -> assertThat(cluster.partition(TOPIC, p).lastStableOffset()).isEqualTo(2));
            assertThat(readCommitted(cluster)).isEmpty();
        }
    }

    private static List<String> readCommitted(KafkaCluster cluster) {
        Map<String, Object> config = cluster.consumerConfig(null);
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, IsolationLevel.READ_COMMITTED.toString());
        List<TopicPartition> tps = IntStream.range(0, 3).mapToObj(p -> new TopicPartition(TOPIC, p)).toList();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            Map<TopicPartition, Long> end = consumer.endOffsets(tps);
            List<String> values = new ArrayList<>();
            await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(1)).alias("read_committed reaches " + end)
                    .until(() -> {
                        consumer.poll(Duration.ofMillis(100)).forEach(r -> values.add(r.value()));
                        return tps.stream().allMatch(tp -> consumer.position(tp) >= end.get(tp));
                    });
            return values;
        }
    }
}
