package dev.samsa.event;

/**
 * A member left or was removed from a classic group; {@code groupInstanceId} is null for a dynamic member or when not
 * known.
 */
public record MemberRemoved(String groupId, String memberId, String groupInstanceId,
        String reason) implements ClusterEvent {

    @Override
    public String details() {
        return "group=" + groupId + " member=" + EventText.member(memberId, groupInstanceId) + " reason: " + reason;
    }
}
