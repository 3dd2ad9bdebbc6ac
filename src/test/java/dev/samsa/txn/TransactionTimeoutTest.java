package dev.samsa.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.samsa.KafkaCluster;
import dev.samsa.coordinator.CoordinatorRuntime;
import dev.samsa.event.TxnMarkerWritten;
import dev.samsa.event.TxnStateChanged;
import dev.samsa.time.ClusterClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.junit.jupiter.api.Test;

/** transaction.timeout.ms is an age deadline on the cluster clock: the coordinator aborts and fences, exactly on time. */
class TransactionTimeoutTest {

    @Test
    void anOpenTransactionIsAbortedWhenTheClockPassesItsTimeoutAndNotAMillisecondBefore() throws Exception {
        // Transaction version 1, which the last assertion is about (version 2: dev.samsa.txn.tv2.TimedOutTransactionTest).
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(11).transactionVersion(1).topic("orders", 1, 3)
                .clock(ClusterClock.manual(Instant.parse("2026-01-01T00:00:00Z"))).start();
             KafkaProducer<String, String> producer = TxnClients.transactionalProducer(cluster, "tx-slow",
                     Map.of("transaction.timeout.ms", "10000"))) {
            producer.initTransactions();
            producer.beginTransaction();
            // The send adds orders-0 to the transaction: its age starts now, at the frozen cluster time.
            producer.send(new ProducerRecord<>("orders", "left-open")).get();

            cluster.clock().advance(Duration.ofMillis(10_000));
            assertThat(states(cluster)).as("at exactly start + timeout the transaction is still open").last().isEqualTo("Ongoing");

            cluster.clock().advance(Duration.ofMillis(1));
            cluster.events().await(TxnStateChanged.class, e -> e.state().equals("CompleteAbort"), Duration.ofSeconds(10));
            assertThat(states(cluster)).containsSubsequence("Ongoing", "PrepareEpochFence", "PrepareAbort", "CompleteAbort");
            assertThat(cluster.events().events(TxnMarkerWritten.class)).singleElement()
                    .satisfies(m -> assertThat(m.committed()).isFalse());

            // As against Kafka with transaction version 1: the abort bumped the epoch, so the producer is fenced.
            assertThatThrownBy(producer::commitTransaction).isInstanceOf(ProducerFencedException.class);
            assertThat(TxnClients.readAll(cluster, "orders", "read_uncommitted")).containsExactly("left-open");
            assertThat(TxnClients.readAll(cluster, "orders", "read_committed")).isEmpty();
        }
    }

    @Test
    void theNextCoordinatorAbortsAtTheSameDeadline() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(12).topic("orders", 1, 3)
                .clock(ClusterClock.manual(Instant.parse("2026-01-01T00:00:00Z"))).start();
             KafkaProducer<String, String> producer = TxnClients.transactionalProducer(cluster, "tx-slow",
                     Map.of("transaction.timeout.ms", "10000"))) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>("orders", "left-open")).get();
            int partition = CoordinatorRuntime.partitionFor("tx-slow", 5);
            int coordinator = cluster.partition(TransactionCoordinator.TRANSACTION_STATE_TOPIC, partition).leader();

            cluster.clock().advance(Duration.ofMillis(4_000));
            cluster.broker(coordinator).crash();
            assertThat(cluster.partition(TransactionCoordinator.TRANSACTION_STATE_TOPIC, partition).leader())
                    .isNotEqualTo(coordinator).isPositive();

            // The transaction's start time is in its record: the successor's deadline is the one its predecessor had.
            cluster.clock().advance(Duration.ofMillis(6_000));
            assertThat(states(cluster)).last().isEqualTo("Ongoing");
            cluster.clock().advance(Duration.ofMillis(1));
            cluster.events().await(TxnStateChanged.class, e -> e.state().equals("CompleteAbort"), Duration.ofSeconds(10));
            assertThat(TxnClients.readAll(cluster, "orders", "read_committed")).isEmpty();
        }
    }

    private static List<String> states(KafkaCluster cluster) {
        return cluster.events().events(TxnStateChanged.class).stream().filter(e -> e.transactionalId().equals("tx-slow"))
                .map(TxnStateChanged::state).toList();
    }
}
