package dev.samsa.event;

/** A DeleteRecords request moved a replica's log start offset. */
public record RecordsDeleted(String topic, int partition, long logStartOffset, int brokerId) implements ClusterEvent {

    @Override
    public String details() {
        return topic + "-" + partition + " logStartOffset=" + logStartOffset + " on broker " + brokerId;
    }
}
