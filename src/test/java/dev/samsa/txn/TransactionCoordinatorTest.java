package dev.samsa.txn;

import static org.assertj.core.api.Assertions.assertThat;

import dev.samsa.coordinator.CoordinatorFixture;
import dev.samsa.event.TxnStateChanged;
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
 * The coordinator's answers, error by error, as Kafka's TransactionCoordinator gives them, on the domain alone: two
 * brokers, {@code __transaction_state} with one replica (so its writes are replicated at once), "orders" on brokers 1
 * (leader) and 2, whose follower a test may pause to hold a transaction's markers.
 */
class TransactionCoordinatorTest {

    private static final TopicPartition ORDERS = new TopicPartition("orders", 0);
    private static final short NO_EPOCH = RecordBatch.NO_PRODUCER_EPOCH;
    private static final long NO_ID = RecordBatch.NO_PRODUCER_ID;

    @TempDir
    Path dir;
    private CoordinatorFixture cluster;
    private TransactionCoordinator txn;
    private int coordinator;

    @BeforeEach
    void start() {
        cluster = new CoordinatorFixture(dir, 2, Map.of("transaction.state.log.replication.factor", "1",
                "transaction.max.timeout.ms", "60000"));
        cluster.createTopic("orders", List.of(List.of(1, 2)));
        txn = cluster.call(() -> new TransactionCoordinator(cluster.state));
        coordinator = cluster.call(() -> txn.findCoordinator(1, "tx"));
    }

    @AfterEach
    void stop() {
        cluster.close();
    }

    @Test
    void aNewTransactionalIdGetsEpochZeroAndEachInitBumpsIt() {
        TransactionCoordinator.InitResult first = init(NO_ID, NO_EPOCH);
        TransactionCoordinator.InitResult second = init(NO_ID, NO_EPOCH);

        assertThat(first.error()).isEqualTo(Errors.NONE);
        assertThat(first.producerEpoch()).isZero();
        assertThat(second.producerId()).isEqualTo(first.producerId());
        assertThat(second.producerEpoch()).isEqualTo((short) 1);
    }

    @Test
    void aProducerRecoveringWithItsIdAndEpochKeepsItsIdAndARetryGetsTheSameAnswer() {
        TransactionCoordinator.InitResult first = init(NO_ID, NO_EPOCH);
        TransactionCoordinator.InitResult recovered = init(first.producerId(), first.producerEpoch());
        TransactionCoordinator.InitResult retried = init(first.producerId(), first.producerEpoch());

        assertThat(recovered).isEqualTo(new TransactionCoordinator.InitResult(first.producerId(), (short) 1, Errors.NONE));
        assertThat(retried).as("a retry of a bump whose answer was lost").isEqualTo(recovered);
        assertThat(init(first.producerId(), (short) 7).error()).as("an epoch that was never current").isEqualTo(Errors.PRODUCER_FENCED);
        assertThat(init(first.producerId() + 100, (short) 1).error()).as("another producer id").isEqualTo(Errors.PRODUCER_FENCED);
    }

    @Test
    void anInitDuringAnOpenTransactionAbortsItAndAsksTheProducerToRetry() {
        TransactionCoordinator.InitResult producer = init(NO_ID, NO_EPOCH);
        assertThat(add(producer, ORDERS)).isEqualTo(Errors.NONE);

        assertThat(init(NO_ID, NO_EPOCH).error()).isEqualTo(Errors.CONCURRENT_TRANSACTIONS);
        awaitState(TransactionState.COMPLETE_ABORT);
        TransactionMetadata aborted = cluster.call(() -> txn.transaction("tx"));
        assertThat(aborted.state()).isEqualTo(TransactionState.COMPLETE_ABORT);
        assertThat(aborted.producerEpoch()).as("fenced").isEqualTo((short) 1);
        assertThat(init(NO_ID, NO_EPOCH).producerEpoch()).as("bumped once more for the retry").isEqualTo((short) 2);
        assertThat(add(producer, ORDERS)).as("the old producer").isEqualTo(Errors.PRODUCER_FENCED);
    }

    @Test
    void theEpochsOfAProducerIdRunOutIntoANewProducerId() {
        TransactionCoordinator.InitResult last = init(NO_ID, NO_EPOCH);
        long firstId = last.producerId();
        while (last.producerEpoch() < Short.MAX_VALUE - 1) {
            last = init(NO_ID, NO_EPOCH);
        }
        TransactionCoordinator.InitResult rotated = init(NO_ID, NO_EPOCH);

        assertThat(last.producerId()).isEqualTo(firstId);
        assertThat(rotated.producerId()).isNotEqualTo(firstId);
        assertThat(rotated.producerEpoch()).isZero();
    }

    @Test
    void addPartitionsChecksTheProducerIdAndEpoch() {
        TransactionCoordinator.InitResult producer = init(NO_ID, NO_EPOCH);

        assertThat(add("unknown", producer.producerId(), producer.producerEpoch(), ORDERS)).isEqualTo(Errors.INVALID_PRODUCER_ID_MAPPING);
        assertThat(add("tx", producer.producerId() + 1, producer.producerEpoch(), ORDERS)).isEqualTo(Errors.INVALID_PRODUCER_ID_MAPPING);
        assertThat(add("tx", producer.producerId(), (short) 5, ORDERS)).isEqualTo(Errors.PRODUCER_FENCED);
        assertThat(add(producer, ORDERS)).isEqualTo(Errors.NONE);
        assertThat(cluster.call(() -> txn.transaction("tx")).state()).isEqualTo(TransactionState.ONGOING);
    }

    @Test
    void endTxnAnswersRetriesAndWrongEndsAsKafka() {
        TransactionCoordinator.InitResult producer = init(NO_ID, NO_EPOCH);
        assertThat(end(producer, true)).as("nothing to commit from Empty").isEqualTo(Errors.INVALID_TXN_STATE);

        add(producer, ORDERS);
        assertThat(end(producer, true)).isEqualTo(Errors.NONE);
        awaitState(TransactionState.COMPLETE_COMMIT);
        assertThat(end(producer, true)).as("a retried commit").isEqualTo(Errors.NONE);
        assertThat(end(producer, false)).as("an abort of what committed").isEqualTo(Errors.INVALID_TXN_STATE);
        assertThat(end(new TransactionCoordinator.InitResult(producer.producerId(), (short) 9, Errors.NONE), true))
                .isEqualTo(Errors.PRODUCER_FENCED);
    }

    @Test
    void whileTheMarkersAreBeingWrittenTheTransactionAnswersConcurrentTransactions() {
        TransactionCoordinator.InitResult producer = init(NO_ID, NO_EPOCH);
        add(producer, ORDERS);
        cluster.pauseFollower(ORDERS, 2);

        assertThat(end(producer, true)).as("answered once PrepareCommit is replicated").isEqualTo(Errors.NONE);
        assertThat(cluster.call(() -> txn.transaction("tx")).state()).isEqualTo(TransactionState.PREPARE_COMMIT);
        assertThat(end(producer, true)).isEqualTo(Errors.CONCURRENT_TRANSACTIONS);
        assertThat(end(producer, false)).isEqualTo(Errors.INVALID_TXN_STATE);
        assertThat(init(NO_ID, NO_EPOCH).error()).isEqualTo(Errors.CONCURRENT_TRANSACTIONS);
        assertThat(add(producer, ORDERS)).isEqualTo(Errors.CONCURRENT_TRANSACTIONS);

        cluster.resumeFollower(ORDERS, 2);
        awaitState(TransactionState.COMPLETE_COMMIT);
    }

    @Test
    void anotherBrokerIsNotTheCoordinatorAndTimeoutsAreBounded() {
        AtomicReference<TransactionCoordinator.InitResult> answer = new AtomicReference<>();
        cluster.run(() -> txn.initProducerId(3 - coordinator, "tx", 1000, NO_ID, NO_EPOCH, answer::set));
        assertThat(answer.get().error()).isEqualTo(Errors.NOT_COORDINATOR);

        cluster.run(() -> txn.initProducerId(coordinator, "tx", 60_001, NO_ID, NO_EPOCH, answer::set));
        assertThat(answer.get().error()).isEqualTo(Errors.INVALID_TRANSACTION_TIMEOUT);
        cluster.run(() -> txn.initProducerId(coordinator, "tx", 0, NO_ID, NO_EPOCH, answer::set));
        assertThat(answer.get().error()).isEqualTo(Errors.INVALID_TRANSACTION_TIMEOUT);
        cluster.run(() -> txn.initProducerId(coordinator, "", 1000, NO_ID, NO_EPOCH, answer::set));
        assertThat(answer.get().error()).isEqualTo(Errors.INVALID_REQUEST);
    }

    @Test
    void belowTheStateTopicsMinIsrTheCoordinatorIsNotAvailableAndNothingIsWritten(@TempDir Path other) {
        try (CoordinatorFixture small = new CoordinatorFixture(other, 2, Map.of("transaction.state.log.replication.factor", "2"))) {
            small.createTopic("orders", List.of(List.of(1, 2)));
            TransactionCoordinator coordinatorOfSmall = small.call(() -> new TransactionCoordinator(small.state));
            int leader = small.call(() -> coordinatorOfSmall.findCoordinator(1, "tx"));
            AtomicReference<TransactionCoordinator.InitResult> answer = new AtomicReference<>();
            AtomicReference<Errors> added = new AtomicReference<>();
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> {
                small.run(() -> coordinatorOfSmall.initProducerId(leader, "tx", 1000, NO_ID, NO_EPOCH, answer::set));
                return answer.get() != null && answer.get().error() == Errors.NONE;
            });
            small.run(() -> coordinatorOfSmall.addPartitions(leader, "tx", answer.get().producerId(), answer.get().producerEpoch(),
                    Set.of(ORDERS), (short) 0, added::set));
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> added.get() == Errors.NONE);

            small.shutDown(3 - leader);
            small.run(() -> coordinatorOfSmall.initProducerId(leader, "tx", 1000, NO_ID, NO_EPOCH, answer::set));

            assertThat(answer.get().error()).as("transaction.state.log.min.isr=2, one replica in sync")
                    .isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE);
            assertThat(small.call(() -> coordinatorOfSmall.transaction("tx")).state()).isEqualTo(TransactionState.ONGOING);
            assertThat(small.call(() -> small.state.timeline().events(TxnStateChanged.class))).extracting(TxnStateChanged::state)
                    .as("no fence was written, so none is told").doesNotContain("PrepareEpochFence");
        }
    }

    /** The markers are written after the answer, as replication lets them. */
    private void awaitState(TransactionState state) {
        Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(5))
                .until(() -> cluster.call(() -> txn.transaction("tx")).state() == state);
    }

    private TransactionCoordinator.InitResult init(long producerId, short epoch) {
        AtomicReference<TransactionCoordinator.InitResult> answer = new AtomicReference<>();
        cluster.run(() -> txn.initProducerId(coordinator, "tx", 60_000, producerId, epoch, answer::set));
        assertThat(answer.get()).as("answered at once: the state partition has one replica").isNotNull();
        return answer.get();
    }

    private Errors add(TransactionCoordinator.InitResult producer, TopicPartition tp) {
        return add("tx", producer.producerId(), producer.producerEpoch(), tp);
    }

    private Errors add(String id, long producerId, short epoch, TopicPartition tp) {
        AtomicReference<Errors> answer = new AtomicReference<>();
        cluster.run(() -> txn.addPartitions(coordinator, id, producerId, epoch, Set.of(tp), (short) 0, answer::set));
        return answer.get();
    }

    private Errors end(TransactionCoordinator.InitResult producer, boolean commit) {
        AtomicReference<Errors> answer = new AtomicReference<>();
        cluster.run(() -> txn.endTransaction(coordinator, "tx", producer.producerId(), producer.producerEpoch(), commit, (short) 0,
                result -> answer.set(result.error())));
        return answer.get();
    }
}
