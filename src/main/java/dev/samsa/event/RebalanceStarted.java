package dev.samsa.event;

/** A classic group began a rebalance. */
public record RebalanceStarted(String groupId, int generation, String reason) implements ClusterEvent {

    @Override
    public String details() {
        return "group=" + groupId + " generation=" + generation + " reason: " + reason;
    }
}
