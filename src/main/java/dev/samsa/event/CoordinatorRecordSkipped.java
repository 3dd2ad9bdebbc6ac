package dev.samsa.event;

/** A record of an offsets partition did not decode and was skipped while loading. */
public record CoordinatorRecordSkipped(int partition, long offset, int brokerId, String error) implements ClusterEvent {

    @Override
    public String details() {
        return "__consumer_offsets-" + partition + " offset=" + offset + " on broker " + brokerId + ": " + error;
    }
}
