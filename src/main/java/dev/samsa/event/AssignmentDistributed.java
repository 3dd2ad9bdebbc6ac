package dev.samsa.event;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A consumer group became Stable: the partitions each member owns from now on ({@code topic-partition}), by member
 * ({@code memberId} or, static, {@code memberId(groupInstanceId)}); for a classic group its generation and the leader's
 * assignment, for a KIP-848 group its group epoch and the members' reconciled assignments.
 */
public record AssignmentDistributed(String groupId, int generation, Map<String, List<String>> partitions) implements ClusterEvent {

    public AssignmentDistributed {
        partitions = java.util.Collections.unmodifiableMap(new TreeMap<>(partitions));
    }

    @Override
    public String details() {
        return "group=" + groupId + " generation=" + generation + " assignment=" + partitions;
    }
}
