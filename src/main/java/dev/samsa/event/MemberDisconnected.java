package dev.samsa.event;

/** The connection a member last spoke on closed: it counts as silent from now on. */
public record MemberDisconnected(String groupId, String memberId, String groupInstanceId,
        String connection) implements ClusterEvent {

    @Override
    public String details() {
        return "group=" + groupId + " member=" + EventText.member(memberId, groupInstanceId) + " connection="
                + connection;
    }
}
