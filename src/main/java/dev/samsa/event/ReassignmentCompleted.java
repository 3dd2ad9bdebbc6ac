package dev.samsa.event;

import java.util.List;

/** A partition reached its reassignment target. */
public record ReassignmentCompleted(String topic, int partition, List<Integer> replicas, int leader,
        int leaderEpoch) implements ClusterEvent {

    public ReassignmentCompleted {
        replicas = List.copyOf(replicas);
    }

    @Override
    public String details() {
        return topic + "-" + partition + " replicas=" + replicas + " leader=" + leader + " epoch=" + leaderEpoch;
    }
}
