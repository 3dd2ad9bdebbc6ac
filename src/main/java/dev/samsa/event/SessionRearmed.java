package dev.samsa.event;

/**
 * A jump of the cluster clock passed a member's session timeout while the member kept heartbeating in wall time, so
 * it stays.
 */
public record SessionRearmed(String groupId, String memberId, String groupInstanceId, long heardMsAgo,
        long heartbeatIntervalMs) implements ClusterEvent {

    @Override
    public String details() {
        return "group=" + groupId + " member=" + EventText.member(memberId, groupInstanceId) + " heard " + heardMsAgo
                + " ms ago in wall time, heartbeat interval ~" + heartbeatIntervalMs + " ms";
    }
}
