package dev.samsa;

/**
 * The state of a transactional id at its coordinator, named as Kafka names them ({@link #toString()} gives
 * "PrepareCommit"), as {@link KafkaCluster#transaction(String)} reports it.
 */
public enum TxnState {
    /** Initialised by InitProducerId; no transaction open. */
    EMPTY("Empty"),
    /** A transaction is open; its partitions are listed. */
    ONGOING("Ongoing"),
    /** The commit is decided and replicated; markers are being written to the partitions listed. */
    PREPARE_COMMIT("PrepareCommit"),
    /** The abort is decided and replicated; markers are being written to the partitions listed. */
    PREPARE_ABORT("PrepareAbort"),
    /** The last transaction committed: every marker is written. */
    COMPLETE_COMMIT("CompleteCommit"),
    /** The last transaction aborted: every marker is written. */
    COMPLETE_ABORT("CompleteAbort"),
    /** Unknown to the cluster: never initialised, expired, or its coordinator is not loaded. */
    DEAD("Dead"),
    /** The coordinator is bumping the producer's epoch to fence it before aborting. */
    PREPARE_EPOCH_FENCE("PrepareEpochFence");

    private final String kafkaName;

    TxnState(String kafkaName) {
        this.kafkaName = kafkaName;
    }

    static TxnState fromKafkaName(String name) {
        for (TxnState s : values()) {
            if (s.kafkaName.equals(name)) {
                return s;
            }
        }
        throw new IllegalArgumentException("Unknown transaction state " + name);
    }

    @Override
    public String toString() {
        return kafkaName;
    }
}
