package dev.samsa.event;

/** Retention deleted a replica's oldest records. */
public record RetentionDeleted(String topic, int partition, int brokerId, long previousLogStartOffset,
        long logStartOffset) implements ClusterEvent {

    @Override
    public String details() {
        return topic + "-" + partition + " broker=" + brokerId + " logStartOffset=" + previousLogStartOffset + "->"
                + logStartOffset;
    }
}
