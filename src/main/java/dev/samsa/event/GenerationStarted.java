package dev.samsa.event;

import java.util.List;

/**
 * A classic group completed its join phase: a new generation with a leader and members, each shown as
 * {@code memberId} or, static, {@code memberId(groupInstanceId)}.
 */
public record GenerationStarted(String groupId, int generation, String protocol, String leader,
        List<String> members) implements ClusterEvent {

    public GenerationStarted {
        members = List.copyOf(members);
    }

    @Override
    public String details() {
        return "group=" + groupId + " generation=" + generation + " protocol=" + protocol + " leader=" + leader
                + " members=" + members;
    }
}
