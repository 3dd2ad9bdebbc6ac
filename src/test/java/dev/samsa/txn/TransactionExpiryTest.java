package dev.samsa.txn;

import static org.assertj.core.api.Assertions.assertThat;

import dev.samsa.event.TxnStateChanged;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * transaction.timeout.ms on the coordinator alone ({@link TransactionTestContext}: a {@code MockScheduler}, no cluster
 * loop, no files): an Ongoing transaction is aborted when the cluster clock passes its start plus its timeout, as
 * Kafka's abortTimedOutTransactions finds it (start + timeout &lt; now), and its producer is fenced.
 */
class TransactionExpiryTest {

    private static final TopicPartition ORDERS = new TopicPartition("orders", 0);
    private static final String TX = "tx-slow";

    @Test
    void anOpenTransactionIsNotAbortedExactlyAtItsTimeoutButFencedAndAbortedOneMillisecondAfter() {
        TransactionTestContext context = new TransactionTestContext((short) 1);
        TransactionCoordinator.InitResult producer = context.init(TX, 10_000);
        // The add opens the transaction: its age starts now, at cluster time 0.
        assertThat(context.add(TX, producer, ORDERS)).isEqualTo(Errors.NONE);

        // Exactly start + timeout: Kafka's check is strict, so nothing fires.
        assertThat(context.scheduler.advance(10_000)).isEmpty();
        assertThat(state(context)).isEqualTo(TransactionState.ONGOING);

        // One millisecond later the timeout fires and the coordinator fences the producer and aborts.
        assertThat(context.scheduler.advance(1)).containsExactly("txn-timeout-" + TX);
        TransactionMetadata aborted = context.coordinator.transaction(TX);
        assertThat(aborted.state()).isEqualTo(TransactionState.COMPLETE_ABORT);
        assertThat(aborted.producerEpoch()).as("fenced: the epoch is bumped").isEqualTo((short) (producer.producerEpoch() + 1));
        assertThat(states(context)).containsSubsequence("Ongoing", "PrepareEpochFence", "PrepareAbort", "CompleteAbort");
        assertThat(context.markers).containsExactly("ABORT " + ORDERS + " " + producer.producerId() + "/1");

        // As against Kafka with transaction version 1: the old producer is fenced.
        assertThat(context.end(TX, producer, true)).isEqualTo(Errors.PRODUCER_FENCED);
        assertThat(context.add(TX, producer, ORDERS)).isEqualTo(Errors.PRODUCER_FENCED);
    }

    @Test
    void withTransactionVersion2TheTimeoutAbortsWithTheEpochBumpedOnceAtTheSameDeadline() {
        TransactionTestContext context = new TransactionTestContext((short) 2);
        TransactionCoordinator.InitResult producer = context.init(TX, 10_000);
        context.scheduler.advance(500);
        assertThat(context.add(TX, producer, ORDERS)).isEqualTo(Errors.NONE);

        // The transaction started at 500: at 10,500 it is still open.
        assertThat(context.scheduler.advance(10_000)).isEmpty();
        assertThat(state(context)).isEqualTo(TransactionState.ONGOING);

        assertThat(context.scheduler.advance(1)).containsExactly("txn-timeout-" + TX);
        TransactionMetadata aborted = context.coordinator.transaction(TX);
        assertThat(aborted.state()).isEqualTo(TransactionState.COMPLETE_ABORT);
        assertThat(aborted.producerEpoch()).isEqualTo((short) (producer.producerEpoch() + 1));
        assertThat(context.markers).containsExactly("ABORT " + ORDERS + " " + producer.producerId() + "/1");
    }

    private static TransactionState state(TransactionTestContext context) {
        return context.coordinator.transaction(TX).state();
    }

    private static List<String> states(TransactionTestContext context) {
        return context.timeline.events().stream().map(e -> e.event()).filter(TxnStateChanged.class::isInstance)
                .map(TxnStateChanged.class::cast).filter(e -> e.transactionalId().equals(TX)).map(TxnStateChanged::state).toList();
    }
}
