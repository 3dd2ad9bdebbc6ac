package dev.samsa.event;

/** A consumer group was created on its coordinator; {@code simple} when by an offset commit, without a JoinGroup. */
public record GroupCreated(String groupId, int coordinator, boolean simple) implements ClusterEvent {

    @Override
    public String details() {
        return "group=" + groupId + (simple ? " (simple, by an offset commit)" : " coordinator=" + coordinator);
    }
}
