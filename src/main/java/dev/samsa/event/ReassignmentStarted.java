package dev.samsa.event;

import java.util.List;

/** A partition reassignment began: {@code replicas} holds the target and the replicas still to go. */
public record ReassignmentStarted(String topic, int partition, List<Integer> replicas, List<Integer> adding,
        List<Integer> removing) implements ClusterEvent {

    public ReassignmentStarted {
        replicas = List.copyOf(replicas);
        adding = List.copyOf(adding);
        removing = List.copyOf(removing);
    }

    @Override
    public String details() {
        return topic + "-" + partition + " replicas=" + replicas + " adding=" + adding + " removing=" + removing;
    }
}
