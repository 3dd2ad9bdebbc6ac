package dev.samsa.event;

/** A consumer group was deleted. */
public record GroupRemoved(String groupId, String reason) implements ClusterEvent {

    @Override
    public String details() {
        return "group=" + groupId + " reason: " + reason;
    }
}
