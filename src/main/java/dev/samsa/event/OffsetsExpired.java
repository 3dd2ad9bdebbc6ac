package dev.samsa.event;

import java.util.List;

/** A group's committed offsets expired; {@code partitions} as {@code topic-partition}. */
public record OffsetsExpired(String groupId, List<String> partitions) implements ClusterEvent {

    public OffsetsExpired {
        partitions = List.copyOf(partitions);
    }

    @Override
    public String details() {
        return "group=" + groupId + " partitions=" + partitions;
    }
}
