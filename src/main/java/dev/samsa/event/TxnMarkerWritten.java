package dev.samsa.event;

/**
 * The transaction coordinator's COMMIT or ABORT marker for one partition of a transaction is appended on the
 * partition's leader and replicated, at {@code offset}.
 */
public record TxnMarkerWritten(String transactionalId, String topic, int partition, long producerId, short producerEpoch,
        boolean committed, long offset, int leader, int coordinatorEpoch) implements ClusterEvent {

    @Override
    public String details() {
        return topic + "-" + partition + " " + (committed ? "COMMIT" : "ABORT") + " transactionalId=" + transactionalId
                + " producerId=" + producerId + " epoch=" + producerEpoch + " offset=" + offset + " leader=" + leader
                + " coordinatorEpoch=" + coordinatorEpoch;
    }
}
