package dev.samsa.txn;

import java.util.Collections;
import java.util.Comparator;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * What the coordinator knows of one transactional id, as Kafka's {@code TransactionMetadata}; one
 * {@code __transaction_state} record carries all of it, so the last record of an id is its state. Immutable: each
 * {@code prepareXxx} builds the next value (Kafka's {@code TxnTransitMetadata}) and checks the move against
 * {@link TransactionState#validPreviousStates()}.
 *
 * @param partitions the partitions of the open transaction, in topic and partition order
 * @param prevProducerId the producer id before the last transition (Kafka keeps it to recognise a retried InitProducerId
 *     after a producer id rotation)
 * @param nextProducerId the producer id the next completion switches to (transaction version 2 epoch exhaustion), or -1
 * @param lastProducerEpoch the epoch before the last bump, so that a retried InitProducerId gets the same answer
 * @param startTimeMs when the open transaction added its first partition (cluster time), -1 with none open
 * @param clientTransactionVersion the transaction version the client used on the last transition (0, 1 or 2)
 */
public record TransactionMetadata(String transactionalId, long producerId, long prevProducerId, long nextProducerId,
                                  short producerEpoch, short lastProducerEpoch, int timeoutMs, TransactionState state,
                                  Set<TopicPartition> partitions, long startTimeMs, long lastUpdateTimeMs,
                                  short clientTransactionVersion) {

    /** Kafka's TransactionVersion.TV_2: the client bumps no epoch itself, the coordinator bumps it at every end. */
    static final short TRANSACTION_VERSION_2 = 2;

    /** Topic, then partition: a record and a timeline always list partitions in the same order. */
    static final Comparator<TopicPartition> ORDER = Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

    public TransactionMetadata {
        SortedSet<TopicPartition> copy = new TreeSet<>(ORDER);
        copy.addAll(partitions);
        partitions = Collections.unmodifiableSortedSet(copy);
    }

    /** A transactional id seen for the first time: its producer id, no epoch yet, Empty. */
    static TransactionMetadata fresh(String transactionalId, long producerId, int timeoutMs, long nowMs) {
        return new TransactionMetadata(transactionalId, producerId, RecordBatch.NO_PRODUCER_ID, RecordBatch.NO_PRODUCER_ID,
                RecordBatch.NO_PRODUCER_EPOCH, RecordBatch.NO_PRODUCER_EPOCH, timeoutMs, TransactionState.EMPTY, Set.of(),
                -1, nowMs, (short) 0);
    }

    /**
     * Kafka never lets a client use an epoch of Short.MAX_VALUE, so that the coordinator can always bump it once more
     * to fence a producer.
     */
    static boolean isEpochExhausted(short epoch) {
        return epoch >= Short.MAX_VALUE - 1;
    }

    boolean isEpochExhausted() {
        return isEpochExhausted(producerEpoch);
    }

    /** InitProducerId: Empty with {@code epoch} (last epoch {@code lastEpoch}) and the producer's timeout. */
    TransactionMetadata prepareInitProducerId(short epoch, short lastEpoch, int newTimeoutMs, long nowMs) {
        return transitionTo(TransactionState.EMPTY, producerId, nextProducerId, epoch, lastEpoch, newTimeoutMs, Set.of(), -1,
                nowMs, clientTransactionVersion);
    }

    /** InitProducerId with the epochs of this producer id exhausted: a new producer id at epoch 0. */
    TransactionMetadata prepareProducerIdRotation(long newProducerId, int newTimeoutMs, long nowMs, boolean recordLastEpoch) {
        return transitionTo(TransactionState.EMPTY, newProducerId, nextProducerId, (short) 0,
                recordLastEpoch ? producerEpoch : RecordBatch.NO_PRODUCER_EPOCH, newTimeoutMs, Set.of(), -1, nowMs,
                clientTransactionVersion);
    }

    /** AddPartitionsToTxn and AddOffsetsToTxn: Ongoing with more partitions; the first one starts the transaction's age. */
    TransactionMetadata prepareAddPartitions(Set<TopicPartition> added, long nowMs, short clientVersion) {
        boolean starts = state == TransactionState.EMPTY || state == TransactionState.COMPLETE_COMMIT
                || state == TransactionState.COMPLETE_ABORT;
        Set<TopicPartition> all = new java.util.HashSet<>(partitions);
        all.addAll(added);
        return transitionTo(TransactionState.ONGOING, producerId, nextProducerId, producerEpoch, lastProducerEpoch, timeoutMs,
                all, starts ? nowMs : startTimeMs, nowMs, clientVersion);
    }

    /**
     * The fence of an Ongoing transaction (Kafka's prepareFenceProducerEpoch): the epoch goes up by one, so the
     * producer that holds the old one is fenced. Only on the way to PrepareAbort ({@link #prepareAbortOrCommit}), which writes the bumped epoch.
     */
    TransactionMetadata prepareFenceProducerEpoch() {
        if (producerEpoch == Short.MAX_VALUE) {
            throw new IllegalStateException("Cannot fence transactional id " + transactionalId + " at epoch " + producerEpoch
                    + ": the epoch would overflow");
        }
        return transitionTo(TransactionState.PREPARE_EPOCH_FENCE, producerId, nextProducerId, (short) (producerEpoch + 1),
                RecordBatch.NO_PRODUCER_EPOCH, timeoutMs, partitions, startTimeMs, lastUpdateTimeMs, clientTransactionVersion);
    }

    /** EndTxn, transaction version 1: PrepareCommit or PrepareAbort, keeping the partitions that must get a marker. */
    TransactionMetadata prepareAbortOrCommit(TransactionState next, long nowMs, short clientVersion) {
        return transitionTo(next, producerId, nextProducerId, producerEpoch, lastProducerEpoch, timeoutMs, partitions,
                startTimeMs, nowMs, clientVersion);
    }

    /**
     * EndTxn, transaction version 2 (Kafka's prepareAbortOrCommit with a client that supports the epoch bump):
     * PrepareCommit or PrepareAbort with the epoch bumped, so the markers carry an epoch that fences every request of
     * the transaction still on its way; {@code newNextProducerId} is the producer id the completion switches to when
     * the bump reached the last epoch, else -1. An abort of no transaction (from Empty or a completed one) starts its
     * age now.
     */
    TransactionMetadata prepareAbortOrCommitWithEpochBump(TransactionState next, long newNextProducerId, long nowMs,
                                                          boolean noPartitionAdded) {
        return transitionTo(next, producerId, newNextProducerId, (short) (producerEpoch + 1), producerEpoch, timeoutMs,
                partitions, noPartitionAdded ? nowMs : startTimeMs, nowMs, TRANSACTION_VERSION_2);
    }

    /**
     * Every marker is written: CompleteCommit or CompleteAbort, no partitions left. With transaction version 2 and a
     * next producer id (the epochs ran out), the producer id moves to it at epoch 0, as Kafka's prepareComplete.
     */
    TransactionMetadata prepareComplete(long nowMs) {
        TransactionState next = state == TransactionState.PREPARE_COMMIT ? TransactionState.COMPLETE_COMMIT : TransactionState.COMPLETE_ABORT;
        boolean rotates = supportsEpochBump() && nextProducerId != RecordBatch.NO_PRODUCER_ID;
        return transitionTo(next, rotates ? nextProducerId : producerId, RecordBatch.NO_PRODUCER_ID,
                rotates ? 0 : producerEpoch, lastProducerEpoch, timeoutMs, Set.of(), startTimeMs, nowMs, clientTransactionVersion);
    }

    /** Whether the last transition came from a transaction version 2 client (Kafka's TransactionVersion.supportsEpochBump). */
    boolean supportsEpochBump() {
        return clientTransactionVersion >= TRANSACTION_VERSION_2;
    }

    /** The transactional id expired: Dead, about to be removed by a tombstone. */
    TransactionMetadata prepareDead(long nowMs) {
        return transitionTo(TransactionState.DEAD, producerId, nextProducerId, producerEpoch, lastProducerEpoch, timeoutMs,
                Set.of(), startTimeMs, nowMs, clientTransactionVersion);
    }

    /**
     * @throws IllegalStateException naming the transactional id, both states and Kafka's rule, when {@code next} may
     *     not follow the current state
     */
    private TransactionMetadata transitionTo(TransactionState next, long newProducerId, long newNextProducerId, short epoch,
                                             short lastEpoch, int newTimeoutMs, Set<TopicPartition> newPartitions,
                                             long newStartTimeMs, long nowMs, short clientVersion) {
        if (!next.validPreviousStates().contains(state)) {
            throw new IllegalStateException("Transactional id " + transactionalId + " cannot move from " + state + " to "
                    + next + "; " + next + " may only follow " + next.validPreviousStates());
        }
        return new TransactionMetadata(transactionalId, newProducerId, producerId, newNextProducerId, epoch, lastEpoch,
                newTimeoutMs, next, newPartitions, newStartTimeMs, nowMs, clientVersion);
    }
}
