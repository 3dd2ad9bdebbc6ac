package dev.samsa.txn;

import static org.assertj.core.api.Assertions.assertThat;

import dev.samsa.KafkaCluster;
import dev.samsa.coordinator.CoordinatorRuntime;
import dev.samsa.event.TxnMarkerWritten;
import dev.samsa.event.TxnStateChanged;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/**
 * A coordinator that crashes after PrepareCommit is replicated and before the markers are: the broker that takes its
 * {@code __transaction_state} partition over loads the transaction in PrepareCommit and finishes the commit.
 */
class TransactionCoordinatorFailoverTest {

    @Test
    void theNextCoordinatorWritesTheMarkersOfACommitItsPredecessorPrepared() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(7).topic("orders", 1, 3).start()) {
            int ordersLeader = cluster.partition("orders", 0).leader();
            String transactionalId = idCoordinatedAwayFrom(cluster, ordersLeader);
            try (KafkaProducer<String, String> producer = TxnClients.transactionalProducer(cluster, transactionalId, Map.of())) {
                producer.initTransactions();
                int coordinator = coordinatorOf(cluster, transactionalId);
                producer.beginTransaction();
                producer.send(new ProducerRecord<>("orders", "r1")).get();
                producer.send(new ProducerRecord<>("orders", "r2")).get();

                // The followers of orders-0 stop fetching: the COMMIT marker can be appended but never replicated.
                List<Integer> followers = cluster.partition("orders", 0).replicas().stream().filter(b -> b != ordersLeader).toList();
                followers.forEach(f -> cluster.faults().pauseReplication("orders", 0, f));
                producer.commitTransaction();
                assertThat(states(cluster, transactionalId)).last().isEqualTo("PrepareCommit");

                cluster.broker(coordinator).crash();
                int successor = coordinatorOf(cluster, transactionalId);
                assertThat(successor).isNotEqualTo(coordinator).isNotNegative();
                followers.forEach(f -> cluster.faults().resumeReplication("orders", 0, f));

                cluster.events().await(TxnStateChanged.class, e -> e.transactionalId().equals(transactionalId)
                        && e.state().equals("CompleteCommit"), Duration.ofSeconds(10));
                int successorEpoch = cluster.partition(TransactionCoordinator.TRANSACTION_STATE_TOPIC, partitionOf(transactionalId)).leaderEpoch();
                assertThat(cluster.events().events(TxnMarkerWritten.class)).filteredOn(TxnMarkerWritten::committed)
                        .extracting(TxnMarkerWritten::coordinatorEpoch)
                        .as("the successor wrote the marker with its own coordinator epoch").contains(successorEpoch);
                assertThat(TxnClients.readAll(cluster, "orders", "read_committed")).as("every record once").containsExactly("r1", "r2");
            }
        }
    }

    @Test
    void aMarkerFollowsItsPartitionToTheNextLeader() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(8).topic("orders", 1, 3).start()) {
            int ordersLeader = cluster.partition("orders", 0).leader();
            String transactionalId = idCoordinatedAwayFrom(cluster, ordersLeader);
            try (KafkaProducer<String, String> producer = TxnClients.transactionalProducer(cluster, transactionalId, Map.of())) {
                producer.initTransactions();
                producer.beginTransaction();
                producer.send(new ProducerRecord<>("orders", "r1")).get();

                // The marker lands on the leader alone; then the leader dies with it.
                List<Integer> followers = cluster.partition("orders", 0).replicas().stream().filter(b -> b != ordersLeader).toList();
                followers.forEach(f -> cluster.faults().pauseReplication("orders", 0, f));
                producer.commitTransaction();
                cluster.broker(ordersLeader).crash();
                int newLeader = cluster.partition("orders", 0).leader();
                assertThat(newLeader).isNotEqualTo(ordersLeader).isPositive();
                followers.forEach(f -> cluster.faults().resumeReplication("orders", 0, f));

                TxnClients.awaitCompleted(cluster, transactionalId);
                assertThat(cluster.events().events(TxnMarkerWritten.class)).singleElement()
                        .satisfies(m -> assertThat(m.leader()).isEqualTo(newLeader));
                assertThat(TxnClients.readAll(cluster, "orders", "read_committed")).containsExactly("r1");
            }
        }
    }

    /** A transactional id whose coordinator is not {@code broker}, so that crashing the coordinator leaves orders-0 alone. */
    private static String idCoordinatedAwayFrom(KafkaCluster cluster, int broker) {
        try (KafkaProducer<String, String> first = TxnClients.transactionalProducer(cluster, "tx-probe", Map.of())) {
            first.initTransactions(); // creates __transaction_state
        }
        for (int i = 0; ; i++) {
            String id = "tx-" + i;
            if (coordinatorOf(cluster, id) != broker) {
                return id;
            }
        }
    }

    private static int partitionOf(String transactionalId) {
        return CoordinatorRuntime.partitionFor(transactionalId, 5);
    }

    private static int coordinatorOf(KafkaCluster cluster, String transactionalId) {
        return cluster.partition(TransactionCoordinator.TRANSACTION_STATE_TOPIC, partitionOf(transactionalId)).leader();
    }

    private static List<String> states(KafkaCluster cluster, String transactionalId) {
        return cluster.events().events(TxnStateChanged.class).stream().filter(e -> e.transactionalId().equals(transactionalId))
                .map(TxnStateChanged::state).toList();
    }
}
