package dev.samsa.event;

import java.util.List;

/** A reassignment found unfinished on restart could not start again. */
public record ReassignmentAbandoned(String topic, int partition, List<Integer> target,
        String reason) implements ClusterEvent {

    public ReassignmentAbandoned {
        target = List.copyOf(target);
    }

    @Override
    public String details() {
        return topic + "-" + partition + " target=" + target + " reason=" + reason;
    }
}
