package dev.samsa.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** Kafka's table of legal transaction transitions, and the metadata moves built on it. */
class TransactionStateTest {

    private static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);

    @Test
    void theTableIsKafkas() {
        // Kafka 4.1's TransactionState.VALID_PREVIOUS_STATES, copied by hand.
        Map<TransactionState, Set<TransactionState>> kafka = Map.of(
                TransactionState.EMPTY, Set.of(TransactionState.EMPTY, TransactionState.COMPLETE_COMMIT, TransactionState.COMPLETE_ABORT),
                TransactionState.ONGOING, Set.of(TransactionState.ONGOING, TransactionState.EMPTY, TransactionState.COMPLETE_COMMIT,
                        TransactionState.COMPLETE_ABORT),
                TransactionState.PREPARE_COMMIT, Set.of(TransactionState.ONGOING),
                TransactionState.PREPARE_ABORT, Set.of(TransactionState.ONGOING, TransactionState.PREPARE_EPOCH_FENCE,
                        TransactionState.EMPTY, TransactionState.COMPLETE_COMMIT, TransactionState.COMPLETE_ABORT),
                TransactionState.COMPLETE_COMMIT, Set.of(TransactionState.PREPARE_COMMIT),
                TransactionState.COMPLETE_ABORT, Set.of(TransactionState.PREPARE_ABORT),
                TransactionState.DEAD, Set.of(TransactionState.EMPTY, TransactionState.COMPLETE_ABORT, TransactionState.COMPLETE_COMMIT),
                TransactionState.PREPARE_EPOCH_FENCE, Set.of(TransactionState.ONGOING));
        for (TransactionState s : TransactionState.values()) {
            assertThat(s.validPreviousStates()).as("predecessors of %s", s).isEqualTo(kafka.get(s));
        }
    }

    @Test
    void idsAndNamesAreTheOnesKafkaWritesAndReports() {
        assertThat(EnumSet.allOf(TransactionState.class)).extracting(TransactionState::id)
                .containsExactly((byte) 0, (byte) 1, (byte) 2, (byte) 3, (byte) 4, (byte) 5, (byte) 6, (byte) 7);
        assertThat(EnumSet.allOf(TransactionState.class)).extracting(TransactionState::toString).containsExactly("Empty",
                "Ongoing", "PrepareCommit", "PrepareAbort", "CompleteCommit", "CompleteAbort", "Dead", "PrepareEpochFence");
        assertThat(TransactionState.fromId((byte) 2)).isEqualTo(TransactionState.PREPARE_COMMIT);
        assertThatThrownBy(() -> TransactionState.fromId((byte) 8)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aTransactionGoesFromItsFirstPartitionThroughCommitToComplete() {
        TransactionMetadata empty = TransactionMetadata.fresh("tx", 7, 60_000, 1_000).prepareInitProducerId((short) 0, (short) -1, 60_000, 1_000);
        TransactionMetadata ongoing = empty.prepareAddPartitions(Set.of(ORDERS_0), 2_000, (short) 0);
        TransactionMetadata prepared = ongoing.prepareAbortOrCommit(TransactionState.PREPARE_COMMIT, 3_000, (short) 0);
        TransactionMetadata complete = prepared.prepareComplete(4_000);

        assertThat(ongoing.startTimeMs()).isEqualTo(2_000);
        assertThat(ongoing.prepareAddPartitions(Set.of(new TopicPartition("orders", 1)), 2_500, (short) 0).startTimeMs())
                .as("more partitions do not restart the transaction's age").isEqualTo(2_000);
        assertThat(prepared.partitions()).containsExactly(ORDERS_0);
        assertThat(complete.state()).isEqualTo(TransactionState.COMPLETE_COMMIT);
        assertThat(complete.partitions()).isEmpty();
        assertThat(complete.producerEpoch()).isEqualTo((short) 0);
    }

    @Test
    void theFenceBumpsTheEpochAndOnlyLeadsToPrepareAbort() {
        TransactionMetadata ongoing = TransactionMetadata.fresh("tx", 7, 60_000, 0)
                .prepareInitProducerId((short) 3, (short) -1, 60_000, 0).prepareAddPartitions(Set.of(ORDERS_0), 0, (short) 0);
        TransactionMetadata fenced = ongoing.prepareFenceProducerEpoch();

        assertThat(fenced.state()).isEqualTo(TransactionState.PREPARE_EPOCH_FENCE);
        assertThat(fenced.producerEpoch()).isEqualTo((short) 4);
        assertThat(fenced.prepareAbortOrCommit(TransactionState.PREPARE_ABORT, 1, (short) 0).producerEpoch()).isEqualTo((short) 4);
        assertThatThrownBy(() -> fenced.prepareAbortOrCommit(TransactionState.PREPARE_COMMIT, 1, (short) 0))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("cannot move from PrepareEpochFence to PrepareCommit");
    }

    @Test
    void anEmptyTransactionCannotCommit() {
        TransactionMetadata empty = TransactionMetadata.fresh("tx", 7, 60_000, 0).prepareInitProducerId((short) 0, (short) -1, 60_000, 0);
        assertThatThrownBy(() -> empty.prepareAbortOrCommit(TransactionState.PREPARE_COMMIT, 1, (short) 0))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("tx cannot move from Empty to PrepareCommit");
    }

    @Test
    void onlyAnIdleIdMayExpire() {
        TransactionMetadata empty = TransactionMetadata.fresh("tx", 7, 60_000, 0).prepareInitProducerId((short) 0, (short) -1, 60_000, 0);
        TransactionMetadata ongoing = empty.prepareAddPartitions(Set.of(ORDERS_0), 1, (short) 0);

        assertThat(empty.prepareDead(2).state()).isEqualTo(TransactionState.DEAD);
        assertThatThrownBy(() -> ongoing.prepareDead(2)).isInstanceOf(IllegalStateException.class);
        assertThat(EnumSet.allOf(TransactionState.class)).filteredOn(TransactionState::isExpirationAllowed)
                .containsExactly(TransactionState.EMPTY, TransactionState.COMPLETE_COMMIT, TransactionState.COMPLETE_ABORT);
    }

    @Test
    void epochsRunOutOneBeforeTheMaximumSoThatTheCoordinatorCanAlwaysFence() {
        assertThat(TransactionMetadata.isEpochExhausted((short) (Short.MAX_VALUE - 2))).isFalse();
        assertThat(TransactionMetadata.isEpochExhausted((short) (Short.MAX_VALUE - 1))).isTrue();
    }
}
