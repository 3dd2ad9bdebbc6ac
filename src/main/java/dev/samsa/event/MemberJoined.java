package dev.samsa.event;

/** A new member joined a classic group; {@code groupInstanceId} is null for a dynamic member. */
public record MemberJoined(String groupId, String memberId, String groupInstanceId,
        String clientId) implements ClusterEvent {

    @Override
    public String details() {
        return "group=" + groupId + " member=" + EventText.member(memberId, groupInstanceId) + " client=" + clientId;
    }
}
