package dev.samsa.txn.tv2;

import static org.assertj.core.api.Assertions.assertThat;

import dev.samsa.coordinator.CoordinatorFixture;
import dev.samsa.event.TxnMarkerWritten;
import dev.samsa.txn.TransactionCoordinator;
import dev.samsa.txn.TransactionCoordinator.EndResult;
import dev.samsa.txn.TransactionCoordinator.InitResult;
import dev.samsa.txn.TransactionMetadata;
import dev.samsa.txn.TransactionState;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Transaction version 2's EndTxn on the coordinator alone, answer by answer as Kafka's endTransaction gives them: the
 * epoch goes up at every end, the answer names the epoch (or the new producer id) to go on with, and a client's
 * retry is told apart from a new end by its epoch. Two brokers, {@code __transaction_state} with one replica,
 * "orders" led by broker 1 with a follower on 2 that a test may pause to hold the markers.
 */
class EpochBumpTest {

    private static final TopicPartition ORDERS = new TopicPartition("orders", 0);
    private static final short TV2 = 2;

    @TempDir
    Path dir;
    private CoordinatorFixture cluster;
    private TransactionCoordinator txn;
    private int coordinator;

    @BeforeEach
    void start() {
        cluster = new CoordinatorFixture(dir, 2, Map.of("transaction.state.log.replication.factor", "1"));
        cluster.createTopic("orders", List.of(List.of(1, 2)));
        txn = cluster.call(() -> new TransactionCoordinator(cluster.state));
        coordinator = cluster.call(() -> txn.findCoordinator(1, "tx"));
    }

    @AfterEach
    void stop() {
        cluster.close();
    }

    @Test
    void everyEndBumpsTheEpochAndTheMarkersCarryTheBumpedOne() {
        InitResult producer = init();
        assertThat(addImplicitly(producer.producerId(), producer.producerEpoch())).isEqualTo(Errors.NONE);

        EndResult committed = end(producer.producerId(), producer.producerEpoch(), true);
        assertThat(committed).isEqualTo(new EndResult(Errors.NONE, producer.producerId(), (short) 1));
        awaitState(TransactionState.COMPLETE_COMMIT);
        assertThat(cluster.state.timeline().events(TxnMarkerWritten.class)).singleElement()
                .satisfies(m -> assertThat(m.producerEpoch()).isEqualTo((short) 1));

        assertThat(addImplicitly(producer.producerId(), (short) 1)).as("the next transaction, at the bumped epoch").isEqualTo(Errors.NONE);
        assertThat(end(producer.producerId(), (short) 1, false)).isEqualTo(new EndResult(Errors.NONE, producer.producerId(), (short) 2));
        awaitState(TransactionState.COMPLETE_ABORT);
        assertThat(addImplicitly(producer.producerId(), (short) 1)).as("a late produce of the aborted transaction")
                .isEqualTo(Errors.PRODUCER_FENCED);
    }

    @Test
    void aRetryIsKnownByItsEpochOneBelowTheStoredOne() {
        InitResult producer = init();
        long id = producer.producerId();
        addImplicitly(id, (short) 0);
        cluster.pauseFollower(ORDERS, 2);

        assertThat(end(id, (short) 0, true).error()).isEqualTo(Errors.NONE);
        assertThat(state().state()).isEqualTo(TransactionState.PREPARE_COMMIT);
        assertThat(end(id, (short) 0, true).error()).as("a retry while the markers are written").isEqualTo(Errors.CONCURRENT_TRANSACTIONS);
        assertThat(end(id, (short) 1, true).error()).as("the bumped epoch is not the client's yet").isEqualTo(Errors.PRODUCER_FENCED);

        cluster.resumeFollower(ORDERS, 2);
        awaitState(TransactionState.COMPLETE_COMMIT);
        assertThat(end(id, (short) 0, true)).as("a retry of the finished commit").isEqualTo(new EndResult(Errors.NONE, id, (short) 1));
        assertThat(end(id, (short) 0, false).error()).as("an abort retried after the commit").isEqualTo(Errors.INVALID_TXN_STATE);
        assertThat(end(id, (short) 1, true).error()).as("a commit of no transaction").isEqualTo(Errors.INVALID_TXN_STATE);
        assertThat(end(id, (short) 7, true).error()).isEqualTo(Errors.PRODUCER_FENCED);
    }

    @Test
    void theNextTransactionsAddWaitsForThePreviousMarkersAsKafkaRetriesIt() {
        InitResult producer = init();
        long id = producer.producerId();
        addImplicitly(id, (short) 0);
        cluster.pauseFollower(ORDERS, 2);
        end(id, (short) 0, true);

        // Retried every 20 ms of wall time for 100 ms (add.partitions.to.txn.retry.backoff.ms and .max.ms), then given up.
        AtomicReference<Map<TopicPartition, Errors>> gaveUp = startAddImplicitly(id, (short) 1);
        for (int i = 0; i < 4; i++) {
            cluster.advanceWall(20);
            assertThat(gaveUp.get()).isNull();
        }
        cluster.advanceWall(20);
        assertThat(gaveUp.get()).containsEntry(ORDERS, Errors.CONCURRENT_TRANSACTIONS);

        AtomicReference<Map<TopicPartition, Errors>> waited = startAddImplicitly(id, (short) 1);
        cluster.resumeFollower(ORDERS, 2);
        awaitState(TransactionState.COMPLETE_COMMIT);
        cluster.advanceWall(20);
        assertThat(waited.get()).containsEntry(ORDERS, Errors.NONE);
        assertThat(state().state()).isEqualTo(TransactionState.ONGOING);
    }

    @Test
    void anAbortOfNoTransactionIsAllowedAndBumpsTheEpochWithoutMarkers() {
        InitResult producer = init();

        // A version 2 client aborts after an error even when nothing reached the coordinator.
        assertThat(end(producer.producerId(), producer.producerEpoch(), false))
                .isEqualTo(new EndResult(Errors.NONE, producer.producerId(), (short) 1));
        awaitState(TransactionState.COMPLETE_ABORT);
        assertThat(cluster.state.timeline().events(TxnMarkerWritten.class)).isEmpty();
        assertThat(end(producer.producerId(), (short) 1, true).error()).isEqualTo(Errors.INVALID_TXN_STATE);
    }

    @Test
    void theEndThatExhaustsTheEpochsMovesTheProducerToANewIdAtEpochZero() {
        InitResult last = init();
        long firstId = last.producerId();
        while (last.producerEpoch() < Short.MAX_VALUE - 1) {
            last = init();
        }
        addImplicitly(firstId, last.producerEpoch());

        EndResult committed = end(firstId, last.producerEpoch(), true);
        assertThat(committed.error()).isEqualTo(Errors.NONE);
        assertThat(committed.producerId()).isNotEqualTo(firstId);
        assertThat(committed.producerEpoch()).isZero();
        awaitState(TransactionState.COMPLETE_COMMIT);
        // The markers go out under the old producer id with the last epoch, Short.MAX_VALUE, which fences it for good.
        assertThat(cluster.state.timeline().events(TxnMarkerWritten.class)).singleElement().satisfies(m -> {
            assertThat(m.producerId()).isEqualTo(firstId);
            assertThat(m.producerEpoch()).isEqualTo(Short.MAX_VALUE);
        });
        assertThat(state().producerId()).isEqualTo(committed.producerId());
        assertThat(end(firstId, (short) (Short.MAX_VALUE - 1), true)).as("a retry across the rotation").isEqualTo(committed);
        assertThat(addImplicitly(committed.producerId(), (short) 0)).isEqualTo(Errors.NONE);
    }

    private InitResult init() {
        AtomicReference<InitResult> answer = new AtomicReference<>();
        cluster.run(() -> txn.initProducerId(coordinator, "tx", 60_000, RecordBatch.NO_PRODUCER_ID,
                RecordBatch.NO_PRODUCER_EPOCH, answer::set));
        assertThat(answer.get().error()).isEqualTo(Errors.NONE);
        return answer.get();
    }

    /** What a partition leader asks for a Produce v12+: add "orders" to the transaction. */
    private Errors addImplicitly(long producerId, short epoch) {
        AtomicReference<Map<TopicPartition, Errors>> answer = startAddImplicitly(producerId, epoch);
        assertThat(answer.get()).as("answered at once: the state partition has one replica").isNotNull();
        return answer.get().get(ORDERS);
    }

    private AtomicReference<Map<TopicPartition, Errors>> startAddImplicitly(long producerId, short epoch) {
        AtomicReference<Map<TopicPartition, Errors>> answer = new AtomicReference<>();
        cluster.run(() -> txn.addPartitionsImplicitly("tx", producerId, epoch, Set.of(ORDERS), answer::set));
        return answer;
    }

    private EndResult end(long producerId, short epoch, boolean commit) {
        AtomicReference<EndResult> answer = new AtomicReference<>();
        cluster.run(() -> txn.endTransaction(coordinator, "tx", producerId, epoch, commit, TV2, answer::set));
        return answer.get();
    }

    private TransactionMetadata state() {
        return cluster.call(() -> txn.transaction("tx"));
    }

    private void awaitState(TransactionState state) {
        Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(5)).until(() -> state().state() == state);
    }
}
