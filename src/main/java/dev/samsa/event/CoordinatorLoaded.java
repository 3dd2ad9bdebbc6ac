package dev.samsa.event;

import java.util.List;

/** A broker became the group coordinator of an offsets partition and replayed it. */
public record CoordinatorLoaded(int partition, int brokerId, List<LoadedGroup> groups, int records,
        int skipped) implements ClusterEvent {

    public CoordinatorLoaded {
        groups = List.copyOf(groups);
    }

    @Override
    public String details() {
        return "__consumer_offsets-" + partition + " on broker " + brokerId + " groups=" + groups + " records="
                + records + (skipped > 0 ? " skipped=" + skipped : "");
    }

    /** One group as loaded: its state, generation and how many members it has. */
    public record LoadedGroup(String groupId, String state, int generation, int members) {

        @Override
        public String toString() {
            return groupId + "(" + state + " generation=" + generation + " members=" + members + ")";
        }
    }
}
