package dev.samsa.txn;

import java.util.EnumSet;
import java.util.Set;

/**
 * The states of a transactional id at its coordinator, as Kafka's {@code TransactionState}; each constant says what
 * moves it on. {@link TransactionMetadata} checks every move against {@link #validPreviousStates()}, Kafka's table.
 * The ids are the bytes Kafka writes to {@code __transaction_state}; the names are what DescribeTransactions and
 * ListTransactions report.
 */
public enum TransactionState {

    /**
     * Initialised by InitProducerId, no transaction open. AddPartitionsToTxn or AddOffsetsToTxn: Ongoing. EndTxn:
     * INVALID_TXN_STATE (transaction version 2 lets an abort through, to PrepareAbort).
     */
    EMPTY((byte) 0, "Empty"),

    /**
     * A transaction is open: its partitions are recorded and its age runs against transaction.timeout.ms.
     * AddPartitionsToTxn, AddOffsetsToTxn: stays Ongoing with more partitions. EndTxn: PrepareCommit or PrepareAbort.
     * InitProducerId or the timeout: PrepareEpochFence, then PrepareAbort with the bumped epoch.
     */
    ONGOING((byte) 1, "Ongoing"),

    /**
     * The commit is decided and replicated; the markers are being written to every partition of the transaction.
     * Every request but a retried commit: CONCURRENT_TRANSACTIONS or INVALID_TXN_STATE. All markers written:
     * CompleteCommit. A coordinator that loads a transaction in this state writes its markers.
     */
    PREPARE_COMMIT((byte) 2, "PrepareCommit"),

    /** As PrepareCommit, for an abort: all markers written, CompleteAbort. */
    PREPARE_ABORT((byte) 3, "PrepareAbort"),

    /** The last transaction committed. Behaves as Empty; a retried commit is answered NONE. */
    COMPLETE_COMMIT((byte) 4, "CompleteCommit"),

    /** The last transaction aborted. Behaves as Empty; a retried abort is answered NONE. */
    COMPLETE_ABORT((byte) 5, "CompleteAbort"),

    /** The transactional id expired (transactional.id.expiration.ms) and is being removed. Final. */
    DEAD((byte) 6, "Dead"),

    /**
     * The coordinator is bumping the epoch of an Ongoing transaction to fence its producer (a new producer called
     * InitProducerId with the same transactional id, or the transaction timed out). Never written to the log: the
     * PrepareAbort that follows carries the bumped epoch.
     */
    PREPARE_EPOCH_FENCE((byte) 7, "PrepareEpochFence");

    private final byte id;
    private final String stateName;

    TransactionState(byte id, String stateName) {
        this.id = id;
        this.stateName = stateName;
    }

    /** The legal predecessors of this state: Kafka's table, in one place. */
    public Set<TransactionState> validPreviousStates() {
        return switch (this) {
            case EMPTY -> EnumSet.of(EMPTY, COMPLETE_COMMIT, COMPLETE_ABORT);
            case ONGOING -> EnumSet.of(ONGOING, EMPTY, COMPLETE_COMMIT, COMPLETE_ABORT);
            case PREPARE_COMMIT -> EnumSet.of(ONGOING);
            case PREPARE_ABORT -> EnumSet.of(ONGOING, PREPARE_EPOCH_FENCE, EMPTY, COMPLETE_COMMIT, COMPLETE_ABORT);
            case COMPLETE_COMMIT -> EnumSet.of(PREPARE_COMMIT);
            case COMPLETE_ABORT -> EnumSet.of(PREPARE_ABORT);
            case DEAD -> EnumSet.of(EMPTY, COMPLETE_ABORT, COMPLETE_COMMIT);
            case PREPARE_EPOCH_FENCE -> EnumSet.of(ONGOING);
        };
    }

    /**
     * Whether a transactional id in this state may expire after transactional.id.expiration.ms without a transition
     * (Kafka's expirationAllowed): no transaction open or ending.
     */
    public boolean isExpirationAllowed() {
        return this == EMPTY || this == COMPLETE_COMMIT || this == COMPLETE_ABORT;
    }

    /** Whether a transaction in this state still owes its partitions a marker. */
    public boolean isPrepare() {
        return this == PREPARE_COMMIT || this == PREPARE_ABORT;
    }

    /** The byte Kafka writes for this state in {@code __transaction_state}. */
    public byte id() {
        return id;
    }

    /**
     * @throws IllegalStateException for an id no state has
     */
    public static TransactionState fromId(byte id) {
        for (TransactionState s : values()) {
            if (s.id == id) {
                return s;
            }
        }
        throw new IllegalStateException("Unknown transaction state id " + id);
    }

    /** Kafka's name, as DescribeTransactions reports it ("PrepareCommit"). */
    @Override
    public String toString() {
        return stateName;
    }
}
