package dev.samsa.group.classic;

import static dev.samsa.group.classic.ClassicGroupState.COMPLETING_REBALANCE;
import static dev.samsa.group.classic.ClassicGroupState.DEAD;
import static dev.samsa.group.classic.ClassicGroupState.PREPARING_REBALANCE;
import static dev.samsa.group.classic.ClassicGroupState.STABLE;

import dev.samsa.event.MemberDisconnected;
import dev.samsa.event.MemberRemoved;
import dev.samsa.event.SessionRearmed;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.CoordinatorNotAvailableException;
import org.apache.kafka.common.errors.IllegalGenerationException;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.UnknownMemberIdException;
import org.apache.kafka.common.protocol.Errors;

/**
 * Who is still in the group: Heartbeat (REBALANCE_IN_PROGRESS tells a member to rejoin), LeaveGroup, and session
 * expiry ("heartbeat-&lt;group&gt;-&lt;member&gt;"). The session timeout is a liveness deadline (DESIGN.md): when the
 * cluster clock passes it, the member is removed only if it has also been silent in wall time for longer than its
 * heartbeat interval; a member still talking is treated as having heartbeated throughout and its timer is re-armed.
 * A member whose client closed its connection to the coordinator is silent at once: it needs no wall-time wait.
 */
public final class ClassicGroupLiveness {

    private final ClassicGroups flows;
    private final ClassicGroupContext ctx;

    ClassicGroupLiveness(ClassicGroups flows) {
        this.flows = flows;
        this.ctx = flows.context;
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
        member.heartbeat(connection, ctx.wallMs());
        switch (group.state()) {
            case EMPTY -> throw new UnknownMemberIdException("Group " + group.groupId() + " is empty; rejoin the group.");
            case PREPARING_REBALANCE -> {
                rescheduleHeartbeat(group, member, member.sessionTimeoutMs());
                throw new RebalanceInProgressException("Group " + group.groupId() + " is rebalancing; rejoin the group.");
            }
            default -> rescheduleHeartbeat(group, member, member.sessionTimeoutMs());
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
                    removeCurrentMember(group, memberId, "left (admin): " + l.reason());
                    left.add(memberId);
                    results.add(Errors.NONE);
                } else {
                    results.add(Errors.UNKNOWN_MEMBER_ID);
                }
            } else if (group.isPendingMember(l.memberId())) {
                group.removePendingMember(l.memberId());
                ctx.scheduler().cancel(ClassicGroupContext.heartbeatKey(group.groupId(), l.memberId()));
                results.add(Errors.NONE);
            } else {
                try {
                    group.throwIfMemberIsInvalid(l.memberId(), l.groupInstanceId());
                    removeCurrentMember(group, l.memberId(), "left: " + l.reason());
                    left.add(l.memberId());
                    results.add(Errors.NONE);
                } catch (ApiException e) {
                    results.add(Errors.forException(e));
                }
            }
        }
        if (!left.isEmpty()) {
            if (group.isInState(STABLE) || group.isInState(COMPLETING_REBALANCE)) {
                flows.join.maybePrepareRebalanceOrCompleteJoin(group, "explicit LeaveGroup of " + left);
            } else if (group.isInState(PREPARING_REBALANCE)) {
                flows.join.maybeCompleteJoinPhase(group);
            }
        }
        return results;
    }

    private void removeCurrentMember(ClassicGroup group, String memberId, String reason) {
        ClassicGroupMember member = group.member(memberId);
        ctx.scheduler().cancel(ClassicGroupContext.heartbeatKey(group.groupId(), memberId));
        group.completeJoin(member, JoinResult.error(Errors.UNKNOWN_MEMBER_ID, ""));
        group.remove(memberId);
        group.timeline().record(new MemberRemoved(group.groupId(), member.memberId(), member.groupInstanceId(), reason));
    }

    void rescheduleHeartbeat(ClassicGroup group, ClassicGroupMember member, long timeoutMs) {
        String groupId = group.groupId();
        String memberId = member.memberId();
        ctx.scheduler().scheduleAfter(ClassicGroupContext.heartbeatKey(groupId, memberId), timeoutMs,
                () -> expireHeartbeat(groupId, memberId));
    }

    /**
     * How long, in wall time, an expiry waits before judging a member whose connection is still open. A client killed
     * just before a jump has closed its sockets, but the broker's reader thread may not have noticed yet; a live
     * client's connection stays open and, having heartbeated meanwhile, it is re-armed after the grace.
     */
    static final long CONNECTION_CLOSE_GRACE_MS = 200;

    /** The session (or a new member's join wait) passed in cluster time. */
    void expireHeartbeat(String groupId, String memberId) {
        expireHeartbeat(groupId, memberId, false);
    }

    private void expireHeartbeat(String groupId, String memberId, boolean graceGiven) {
        ClassicGroup group = ctx.groups().apply(groupId);
        if (group == null || group.isInState(DEAD)) {
            return;
        }
        if (group.isPendingMember(memberId)) {
            group.removePendingMember(memberId);
            if (group.isInState(PREPARING_REBALANCE) && group.hasAllMembersJoined()) {
                flows.join.completeJoin(group);
            }
            return;
        }
        ClassicGroupMember member = group.member(memberId);
        if (member == null || member.hasSatisfiedHeartbeat()) {
            return;
        }
        if (member.isConnected() && !graceGiven) {
            ctx.scheduler().scheduleWall(ClassicGroupContext.heartbeatKey(groupId, memberId), CONNECTION_CLOSE_GRACE_MS,
                    () -> expireHeartbeat(groupId, memberId, true));
            return;
        }
        long nowWallMs = ctx.wallMs();
        if (!member.silentInWallTime(nowWallMs)) {
            // Still talking in wall time: the clock jumped over its heartbeats, it did not miss them.
            group.timeline().record(new SessionRearmed(groupId, member.memberId(), member.groupInstanceId(),
                    member.wallMsSinceHeard(nowWallMs), member.heartbeatIntervalEstimateMs()));
            rescheduleHeartbeat(group, member, member.sessionTimeoutMs());
            return;
        }
        removeMember(group, memberId, "session timeout of " + member.sessionTimeoutMs() + " ms expired"
                + (member.isConnected() ? "" : "; its connection to the coordinator closed"));
    }

    /** Removes a member as a session expiry does, and rebalances. Used by {@code cluster.group(id).expireMember}. */
    public void removeMember(ClassicGroup group, String memberId, String reason) {
        ClassicGroupMember member = group.member(memberId);
        if (member == null) {
            throw new IllegalArgumentException("No member " + memberId + " in group " + group.groupId() + "; members are "
                    + group.allMembers());
        }
        ctx.scheduler().cancel(ClassicGroupContext.heartbeatKey(group.groupId(), memberId));
        group.completeJoin(member, JoinResult.error(Errors.UNKNOWN_MEMBER_ID, ""));
        group.remove(memberId);
        group.timeline().record(new MemberRemoved(group.groupId(), member.memberId(), member.groupInstanceId(), reason));
        if (group.isInState(STABLE) || group.isInState(COMPLETING_REBALANCE)) {
            flows.join.maybePrepareRebalanceOrCompleteJoin(group, "removing " + memberId + ": " + reason);
        } else if (group.isInState(PREPARING_REBALANCE) && group.hasAllMembersJoined()) {
            flows.join.completeJoin(group);
        }
    }

    /** A client connection closed: the members that last spoke on it are silent from now on (DESIGN.md). */
    public void connectionClosed(ClassicGroup group, String connection) {
        for (ClassicGroupMember m : group.allMembers()) {
            if (m.connectionClosed(connection)) {
                group.timeline().record(new MemberDisconnected(group.groupId(), m.memberId(), m.groupInstanceId(), connection));
            }
        }
    }

    /**
     * The group was just read back by a new coordinator: its members get a full session to find it and heartbeat, as
     * Kafka's {@code onLoaded} arms their timers; those that never do are removed and the group rebalances.
     */
    public void onLoaded(ClassicGroup group) {
        for (ClassicGroupMember m : group.allMembers()) {
            rescheduleHeartbeat(group, m, m.sessionTimeoutMs());
        }
    }

    /** The group's partition moved away: parked requests learn NOT_COORDINATOR and its timers stop. */
    public void unload(ClassicGroup group) {
        for (ClassicGroupMember m : List.copyOf(group.allMembers())) {
            group.completeJoin(m, JoinResult.error(Errors.NOT_COORDINATOR, m.memberId()));
            group.completeSync(m, SyncResult.error(Errors.NOT_COORDINATOR));
            ctx.scheduler().cancel(ClassicGroupContext.heartbeatKey(group.groupId(), m.memberId()));
        }
        ctx.scheduler().cancel(ClassicGroupContext.joinKey(group.groupId()));
        ctx.scheduler().cancel(ClassicGroupContext.syncKey(group.groupId()));
    }
}
