package dev.samsa.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.samsa.KafkaCluster;
import dev.samsa.event.TxnMarkerWritten;
import dev.samsa.event.TxnStateChanged;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.junit.jupiter.api.Test;

/** Transactions with the real kafka-clients producer and consumer against three brokers. */
class TransactionsTest {

    @Test
    void aReadCommittedConsumerSeesTheCommittedTransactionsOnly() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).topic("orders", 1, 3).start();
             KafkaProducer<String, String> producer = TxnClients.transactionalProducer(cluster, "tx-orders", Map.of())) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>("orders", "a1"));
            producer.send(new ProducerRecord<>("orders", "a2"));
            producer.commitTransaction();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>("orders", "b1"));
            producer.flush();
            producer.abortTransaction();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>("orders", "c1"));
            producer.commitTransaction();
            TxnClients.awaitCompleted(cluster, "tx-orders");

            assertThat(TxnClients.readAll(cluster, "orders", "read_committed")).containsExactly("a1", "a2", "c1");
            assertThat(TxnClients.readAll(cluster, "orders", "read_uncommitted")).containsExactly("a1", "a2", "b1", "c1");
            assertThat(cluster.events().events(TxnMarkerWritten.class)).extracting(TxnMarkerWritten::committed)
                    .containsExactly(true, false, true);
            assertThat(cluster.events().events(TxnStateChanged.class)).extracting(TxnStateChanged::state)
                    .containsSubsequence("Empty", "Ongoing", "PrepareCommit", "CompleteCommit", "Ongoing", "PrepareAbort",
                            "CompleteAbort", "Ongoing", "PrepareCommit", "CompleteCommit");
        }
    }

    @Test
    void aSecondProducerWithTheSameTransactionalIdFencesTheFirst() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).topic("orders", 1, 3).start();
             KafkaProducer<String, String> zombie = TxnClients.transactionalProducer(cluster, "tx-fenced", Map.of());
             KafkaProducer<String, String> successor = TxnClients.transactionalProducer(cluster, "tx-fenced", Map.of())) {
            zombie.initTransactions();
            zombie.beginTransaction();
            zombie.send(new ProducerRecord<>("orders", "zombie")).get();

            // The successor's InitProducerId aborts the zombie's open transaction and bumps the epoch past it.
            successor.initTransactions();
            successor.beginTransaction();
            successor.send(new ProducerRecord<>("orders", "successor"));
            successor.commitTransaction();

            // As against Kafka 4.1 with partition verification: the old epoch is refused before it reaches the log.
            assertThatThrownBy(() -> zombie.send(new ProducerRecord<>("orders", "zombie-after-fence")).get())
                    .as("a write after the fence").isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(InvalidProducerEpochException.class);
            assertThatThrownBy(zombie::commitTransaction).isInstanceOf(InvalidProducerEpochException.class);
            TxnClients.awaitCompleted(cluster, "tx-fenced");
            assertThat(cluster.events().events(TxnMarkerWritten.class)).extracting(TxnMarkerWritten::committed)
                    .containsExactly(false, true);
            assertThat(TxnClients.readAll(cluster, "orders", "read_committed")).containsExactly("successor");
            assertThat(cluster.events().events(TxnStateChanged.class)).extracting(TxnStateChanged::state)
                    .containsSubsequence("Ongoing", "PrepareEpochFence", "PrepareAbort", "CompleteAbort", "Empty", "Ongoing");
        }
    }

    @Test
    void aTransactionTimeoutAboveTheBrokersMaximumIsRefused() {
        try (KafkaCluster cluster = KafkaCluster.builder().brokerConfig("transaction.max.timeout.ms", "60000").start();
             KafkaProducer<String, String> producer = TxnClients.transactionalProducer(cluster, "tx-long",
                     Map.of("transaction.timeout.ms", "60001"))) {
            // The Java client has no special case for INVALID_TRANSACTION_TIMEOUT: it fails with the error's message.
            assertThatThrownBy(producer::initTransactions).isInstanceOf(KafkaException.class)
                    .hasMessageContaining("transaction timeout is larger than the maximum value allowed by the broker");
        }
    }
}
