package dev.samsa.event;

import java.util.List;

/** A topic grew to {@code partitions} partitions; {@code added} holds the new ones' first leaders and ISRs. */
public record PartitionsCreated(String topic, int partitions, List<PartitionState> added) implements ClusterEvent {

    public PartitionsCreated {
        added = List.copyOf(added);
    }

    public PartitionsCreated(String topic, int partitions) {
        this(topic, partitions, List.of());
    }

    @Override
    public String details() {
        return topic + " partitions=" + partitions;
    }
}
