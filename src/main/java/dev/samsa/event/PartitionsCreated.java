package dev.samsa.event;

/** A topic grew to {@code partitions} partitions. */
public record PartitionsCreated(String topic, int partitions) implements ClusterEvent {

    @Override
    public String details() {
        return topic + " partitions=" + partitions;
    }
}
