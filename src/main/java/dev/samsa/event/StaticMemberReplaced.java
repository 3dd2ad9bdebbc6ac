package dev.samsa.event;

/** A static member rejoined under a new member id, taking over the old one's place. */
public record StaticMemberReplaced(String groupId, String groupInstanceId, String previousMemberId,
        String memberId) implements ClusterEvent {

    @Override
    public String details() {
        return "group=" + groupId + " instance=" + groupInstanceId + " " + previousMemberId + "->" + memberId;
    }
}
