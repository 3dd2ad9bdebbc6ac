package dev.samsa.txn.e2e;

import static dev.samsa.txn.TxnClients.partitions;
import static dev.samsa.txn.TxnClients.readAll;
import static dev.samsa.txn.TxnClients.transactionalProducer;
import static dev.samsa.txn.TxnClients.values;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.samsa.KafkaCluster;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Two producers with one transactional.id on three brokers: the second's initTransactions bumps the epoch and aborts
 * the first's open transaction, after which the first (the zombie) can neither commit nor write anything a
 * read_committed consumer would see. The errors are Kafka 4.1's (its TransactionsTest testFencingOnCommit and
 * testFencingOnSend), the same under transaction versions 1 and 2: the coordinator answers the zombie's EndTxn with
 * PRODUCER_FENCED, and a partition leader answers its produce with INVALID_PRODUCER_EPOCH (the leader's verification
 * turns the coordinator's PRODUCER_FENCED into it).
 */
class ZombieFencingTest {

    private static final String TOPIC = "ledger";
    private static final String TRANSACTIONAL_ID = "ledger-writer";

    private static KafkaCluster cluster(int transactionVersion) {
        return KafkaCluster.builder().brokers(3).transactionVersion(transactionVersion).topic(TOPIC, 2, 3).start();
    }

    @ParameterizedTest(name = "transaction version {0}")
    @ValueSource(ints = {1, 2})
    void theOlderProducerIsFencedOnCommitAndItsTransactionIsAborted(int transactionVersion) throws Exception {
        try (KafkaCluster cluster = cluster(transactionVersion);
                KafkaProducer<String, String> zombie = transactionalProducer(cluster, TRANSACTIONAL_ID);
                KafkaProducer<String, String> successor = transactionalProducer(cluster, TRANSACTIONAL_ID)) {
            zombie.initTransactions();
            zombie.beginTransaction();
            zombie.send(new ProducerRecord<>(TOPIC, 0, "k", "zombie-before-fence")).get();
            zombie.send(new ProducerRecord<>(TOPIC, 1, "k", "zombie-before-fence")).get();

            successor.initTransactions();

            assertThatThrownBy(zombie::commitTransaction).isInstanceOf(ProducerFencedException.class);
            successor.beginTransaction();
            successor.send(new ProducerRecord<>(TOPIC, 0, "k", "successor")).get();
            successor.commitTransaction();

            List<TopicPartition> partitions = partitions(TOPIC, 2);
            awaitNoOpenTransaction(cluster);
            assertThat(values(readAll(cluster, IsolationLevel.READ_COMMITTED, partitions))).containsExactly("successor");
            assertThat(values(readAll(cluster, IsolationLevel.READ_UNCOMMITTED, partitions)))
                    .containsExactly("zombie-before-fence", "successor", "zombie-before-fence");
        }
    }

    @ParameterizedTest(name = "transaction version {0}")
    @ValueSource(ints = {1, 2})
    void theOlderProducerIsFencedOnSendAndNothingItSendsAfterTheFenceIsWritten(int transactionVersion) throws Exception {
        try (KafkaCluster cluster = cluster(transactionVersion);
                KafkaProducer<String, String> zombie = transactionalProducer(cluster, TRANSACTIONAL_ID);
                KafkaProducer<String, String> successor = transactionalProducer(cluster, TRANSACTIONAL_ID)) {
            zombie.initTransactions();
            zombie.beginTransaction();
            zombie.send(new ProducerRecord<>(TOPIC, 0, "k", "zombie-before-fence")).get();

            successor.initTransactions();

            var send = zombie.send(new ProducerRecord<>(TOPIC, 0, "k", "zombie-after-fence"));
            assertThatThrownBy(send::get).isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(InvalidProducerEpochException.class);
            // The send error is abortable, but the zombie's abort meets the new epoch at the coordinator.
            assertThatThrownBy(zombie::abortTransaction).isInstanceOf(ProducerFencedException.class);

            successor.beginTransaction();
            successor.send(new ProducerRecord<>(TOPIC, 1, "k", "successor")).get();
            successor.commitTransaction();

            List<TopicPartition> partitions = partitions(TOPIC, 2);
            awaitNoOpenTransaction(cluster);
            assertThat(values(readAll(cluster, IsolationLevel.READ_COMMITTED, partitions))).containsExactly("successor");
            assertThat(values(readAll(cluster, IsolationLevel.READ_UNCOMMITTED, partitions)))
                    .as("what the zombie sent after the fence never reached a log")
                    .containsExactly("zombie-before-fence", "successor");
        }
    }

    /** EndTxn is answered before the markers are written: wait until they close every transaction. */
    private static void awaitNoOpenTransaction(KafkaCluster cluster) {
        await().atMost(10, TimeUnit.SECONDS).untilAsserted(() -> {
            for (int p = 0; p < 2; p++) {
                var partition = cluster.partition(TOPIC, p);
                assertThat(partition.lastStableOffset()).as("last stable offset of %s", partition)
                        .isEqualTo(partition.highWatermark());
            }
        });
    }
}
