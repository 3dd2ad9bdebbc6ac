package dev.samsa.event;

/** The log cleaner rewrote a replica's log, removing {@code recordsRemoved} records, up to {@code cleanedUpTo}. */
public record Compacted(String topic, int partition, int brokerId, long recordsRemoved, long cleanedUpTo)
        implements ClusterEvent {

    @Override
    public String details() {
        return topic + "-" + partition + " broker=" + brokerId + " recordsRemoved=" + recordsRemoved + " cleanedUpTo="
                + cleanedUpTo;
    }
}
