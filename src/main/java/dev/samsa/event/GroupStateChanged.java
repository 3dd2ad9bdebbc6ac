package dev.samsa.event;

import java.util.List;

/** A classic group moved from one state to another (Kafka's display names: "PreparingRebalance", ...). */
public record GroupStateChanged(String groupId, String previousState, String state, int generation, String leader,
        List<String> members) implements ClusterEvent {

    public GroupStateChanged {
        members = List.copyOf(members);
    }

    @Override
    public String details() {
        return "group=" + groupId + " " + previousState + "->" + state + " generation=" + generation + " leader="
                + leader + " members=" + members;
    }
}
