package dev.samsa.event;

import java.util.List;

/** A reassignment was cancelled: back to the original replicas, the adding ones removed. */
public record ReassignmentCancelled(String topic, int partition, List<Integer> replicas,
        List<Integer> removed) implements ClusterEvent {

    public ReassignmentCancelled {
        replicas = List.copyOf(replicas);
        removed = List.copyOf(removed);
    }

    @Override
    public String details() {
        return topic + "-" + partition + " replicas=" + replicas + " removed=" + removed;
    }
}
