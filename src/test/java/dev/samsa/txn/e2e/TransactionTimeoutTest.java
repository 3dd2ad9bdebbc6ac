package dev.samsa.txn.e2e;

import static dev.samsa.txn.TxnClients.readAll;
import static dev.samsa.txn.TxnClients.transactionalProducer;
import static dev.samsa.txn.TxnClients.values;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.samsa.KafkaCluster;
import dev.samsa.PartitionView;
import dev.samsa.TransactionView;
import dev.samsa.TxnState;
import dev.samsa.time.ClusterClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code transaction.timeout.ms} is an age deadline on the cluster clock. Kafka's coordinator aborts a transaction
 * when {@code txnStartTimestamp + txnTimeoutMs < now} (TransactionStateManager.timedOutTransactions): still open at
 * the deadline itself, aborted one millisecond after it. The abort bumps the epoch, so the producer's next send is
 * refused with INVALID_PRODUCER_EPOCH, as in Kafka's TransactionsTest testFencingOnTransactionExpiration, under
 * transaction versions 1 and 2 alike; what its abort then meets differs by version. (dev.samsa.txn.TransactionTimeoutTest
 * follows the coordinator's states through the same deadline.)
 */
class TransactionTimeoutTest {

    private static final String TOPIC = "slow";
    private static final String TRANSACTIONAL_ID = "slow-writer";
    private static final int TIMEOUT_MS = 10_000;

    @ParameterizedTest(name = "transaction version {0}")
    @ValueSource(ints = {1, 2})
    void anOpenTransactionIsAbortedOneMillisecondAfterItsTimeoutAndTheProducersNextSendIsRefused(int transactionVersion)
            throws Exception {
        ClusterClock clock = ClusterClock.manual(Instant.parse("2026-01-01T00:00:00Z"));
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).clock(clock).transactionVersion(transactionVersion)
                .topic(TOPIC, 1, 3).start();
                KafkaProducer<String, String> producer = transactionalProducer(cluster, TRANSACTIONAL_ID,
                        Map.of(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, TIMEOUT_MS))) {
            PartitionView partition = cluster.partition(TOPIC, 0);
            producer.initTransactions();
            producer.beginTransaction();
            // The clock stands still, so the transaction starts (its first partition is added) at this instant.
            Instant start = clock.instant();
            producer.send(new ProducerRecord<>(TOPIC, 0, "k", "left-open-0")).get();
            TransactionView open = cluster.transaction(TRANSACTIONAL_ID);
            assertThat(open.startTime()).contains(start);

            // Exactly at the deadline: still open, and the producer may go on writing in it.
            clock.advance(Duration.ofMillis(TIMEOUT_MS));
            producer.send(new ProducerRecord<>(TOPIC, 0, "k", "left-open-1")).get();
            assertThat(cluster.transaction(TRANSACTIONAL_ID).state()).isEqualTo(TxnState.ONGOING);
            assertThat(partition.lastStableOffset()).as("last stable offset of %s", partition).isZero();
            assertThat(partition.highWatermark()).isEqualTo(2);

            // One millisecond past it: the coordinator bumps the epoch (fencing the producer) and writes the abort
            // marker at offset 2.
            clock.advance(Duration.ofMillis(1));
            await().atMost(10, TimeUnit.SECONDS).untilAsserted(() -> {
                assertThat(cluster.transaction(TRANSACTIONAL_ID).state()).isEqualTo(TxnState.COMPLETE_ABORT);
                assertThat(partition.highWatermark()).as("high watermark of %s", partition).isEqualTo(3);
                assertThat(partition.lastStableOffset()).as("last stable offset of %s", partition).isEqualTo(3);
            });
            assertThat(cluster.transaction(TRANSACTIONAL_ID).producerEpoch()).isEqualTo((short) (open.producerEpoch() + 1));

            // The producer's next call, a send, meets the bumped epoch at the partition leader.
            var late = producer.send(new ProducerRecord<>(TOPIC, 0, "k", "after-timeout"));
            assertThatThrownBy(late::get).isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(InvalidProducerEpochException.class);

            List<TopicPartition> partitions = List.of(new TopicPartition(TOPIC, 0));
            if (transactionVersion == 1) {
                // Version 1: the producer's abort carries the old epoch, and the coordinator calls it fenced.
                assertThatThrownBy(producer::abortTransaction).isInstanceOf(ProducerFencedException.class);
            } else {
                // Version 2: an abort one epoch behind a completed abort is a retry of it (TransactionCoordinator's
                // end-transaction table: CompleteAbort, Abort, Retry = NONE); the producer takes the bumped epoch
                // from the EndTxn response and goes on.
                producer.abortTransaction();
                producer.beginTransaction();
                producer.send(new ProducerRecord<>(TOPIC, 0, "k", "next")).get();
                producer.commitTransaction();
                await().atMost(10, TimeUnit.SECONDS).until(() -> partition.lastStableOffset() == 5);
            }
            List<String> committed = transactionVersion == 1 ? List.of() : List.of("next");
            assertThat(values(readAll(cluster, IsolationLevel.READ_COMMITTED, partitions))).isEqualTo(committed);
            List<String> written = new ArrayList<>(List.of("left-open-0", "left-open-1"));
            written.addAll(committed);
            assertThat(values(readAll(cluster, IsolationLevel.READ_UNCOMMITTED, partitions)))
                    .as("the late send never reached the log").isEqualTo(written);
        }
    }
}
