package dev.samsa.group.classic;

import static dev.samsa.group.classic.ClassicGroupState.COMPLETING_REBALANCE;
import static dev.samsa.group.classic.ClassicGroupState.DEAD;
import static dev.samsa.group.classic.ClassicGroupState.PREPARING_REBALANCE;
import static dev.samsa.group.classic.ClassicGroupState.STABLE;

import dev.samsa.event.MemberDisconnected;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.CoordinatorNotAvailableException;
import org.apache.kafka.common.errors.IllegalGenerationException;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.UnknownMemberIdException;
import org.apache.kafka.common.protocol.Errors;

/**
 * Who is still in the group, as the members tell it: Heartbeat (REBALANCE_IN_PROGRESS tells a member to rejoin), an
 * OffsetCommit while Stable or PreparingRebalance, LeaveGroup, and a closed connection, which makes the members that last spoke on it silent at once. What a session
 * expiry decides (the liveness rule of DESIGN.md) is the {@link ClassicGroupRebalancer}'s.
 */
public final class ClassicGroupLiveness {

    private final ClassicGroupContext ctx;
    private final ClassicGroupRebalancer rebalancer;

    ClassicGroupLiveness(ClassicGroupContext ctx, ClassicGroupRebalancer rebalancer) {
        this.ctx = ctx;
        this.rebalancer = rebalancer;
    }

    /**
     * @throws ApiException UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID, ILLEGAL_GENERATION, REBALANCE_IN_PROGRESS or
     *         COORDINATOR_NOT_AVAILABLE, as Kafka answers
     */
    public void heartbeat(ClassicGroup group, String memberId, String groupInstanceId, int generationId, String connection) {
        if (group == null) {
            throw new UnknownMemberIdException("Group not found; rejoin the group.");
        }
        if (group.isInState(DEAD)) {
            throw new CoordinatorNotAvailableException("Group " + group.groupId() + " is dead; find the coordinator again.");
        }
        group.throwIfMemberIsInvalid(memberId, groupInstanceId);
        if (generationId != group.generationId()) {
            throw new IllegalGenerationException("Generation " + generationId + " is not the current generation "
                    + group.generationId() + " of group " + group.groupId() + "; rejoin the group.");
        }
        ClassicGroupMember member = group.member(memberId);
        member.heartbeat(connection, ctx.scheduler().wallMs());
        switch (group.state()) {
            case EMPTY -> throw new UnknownMemberIdException("Group " + group.groupId() + " is empty; rejoin the group.");
            case PREPARING_REBALANCE -> {
                rebalancer.rescheduleHeartbeat(group, memberId, member.sessionTimeoutMs());
                throw new RebalanceInProgressException("Group " + group.groupId() + " is rebalancing; rejoin the group.");
            }
            default -> rebalancer.rescheduleHeartbeat(group, memberId, member.sessionTimeoutMs());
        }
    }

    /**
     * An OffsetCommit the group accepted from {@code memberId}: in a Stable or PreparingRebalance group it maintains
     * the member's session, as a Heartbeat does (Kafka's {@code OffsetMetadataManager.commitOffset}); an admin or
     * simple-consumer commit (no member) changes nothing.
     */
    public void offsetCommitted(ClassicGroup group, String memberId, String connection) {
        ClassicGroupMember member = group.member(memberId);
        if (member != null && (group.isInState(STABLE) || group.isInState(PREPARING_REBALANCE))) {
            member.heard(connection, ctx.scheduler().wallMs());
            rebalancer.rescheduleHeartbeat(group, memberId, member.sessionTimeoutMs());
        }
    }

    /** One member of a LeaveGroup (v3+ carries several); the error for it, NONE when it left. */
    public record Leaving(String memberId, String groupInstanceId, String reason) {
    }

    public List<Errors> leave(ClassicGroup group, List<Leaving> leaving) {
        List<Errors> results = new ArrayList<>();
        List<String> left = new ArrayList<>();
        for (Leaving l : leaving) {
            if (l.memberId().isEmpty()) {
                // Admin removal by instance id.
                if (l.groupInstanceId() != null && group.hasStaticMember(l.groupInstanceId())) {
                    String memberId = group.staticMemberId(l.groupInstanceId());
                    rebalancer.removeMember(group, group.member(memberId), "left (admin): " + l.reason());
                    left.add(memberId);
                    results.add(Errors.NONE);
                } else {
                    results.add(Errors.UNKNOWN_MEMBER_ID);
                }
            } else if (group.isPendingMember(l.memberId())) {
                group.removePendingMember(l.memberId());
                rebalancer.cancelHeartbeat(group, l.memberId());
                results.add(Errors.NONE);
            } else {
                try {
                    group.throwIfMemberIsInvalid(l.memberId(), l.groupInstanceId());
                    rebalancer.removeMember(group, group.member(l.memberId()), "left: " + l.reason());
                    left.add(l.memberId());
                    results.add(Errors.NONE);
                } catch (ApiException e) {
                    results.add(Errors.forException(e));
                }
            }
        }
        if (!left.isEmpty()) {
            if (group.isInState(STABLE) || group.isInState(COMPLETING_REBALANCE)) {
                rebalancer.maybePrepareRebalanceOrCompleteJoin(group, "explicit LeaveGroup of " + left);
            } else if (group.isInState(PREPARING_REBALANCE)) {
                rebalancer.maybeCompleteJoinPhase(group);
            }
        }
        return results;
    }

    /** A client connection closed: the members that last spoke on it are silent from now on (DESIGN.md). */
    public void connectionClosed(ClassicGroup group, String connection) {
        for (ClassicGroupMember m : group.allMembers()) {
            if (m.connectionClosed(connection)) {
                group.timeline().record(new MemberDisconnected(group.groupId(), m.memberId(), m.groupInstanceId(), connection));
            }
        }
    }
}
