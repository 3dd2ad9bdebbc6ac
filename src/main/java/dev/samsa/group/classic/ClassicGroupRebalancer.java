package dev.samsa.group.classic;

import static dev.samsa.group.classic.ClassicGroupState.COMPLETING_REBALANCE;
import static dev.samsa.group.classic.ClassicGroupState.DEAD;
import static dev.samsa.group.classic.ClassicGroupState.EMPTY;
import static dev.samsa.group.classic.ClassicGroupState.PREPARING_REBALANCE;
import static dev.samsa.group.classic.ClassicGroupState.STABLE;

import dev.samsa.event.AssignmentDistributed;
import dev.samsa.event.GenerationStarted;
import dev.samsa.event.MemberRemoved;
import dev.samsa.event.RebalanceStarted;
import dev.samsa.event.SessionRearmed;
import dev.samsa.group.MemberLiveness;
import dev.samsa.time.Scheduler;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;

/**
 * The one rebalance engine of the classic protocol, as the classic half of Kafka's {@code GroupMetadataManager}: it
 * prepares and completes rebalances, propagates assignments and errors to parked members, and owns the group's timers
 * and what they decide: a member's session ("heartbeat-&lt;group&gt;-&lt;member&gt;"), the join phase
 * ("join-&lt;group&gt;") and the sync phase ("sync-&lt;group&gt;"), and the one way a member is removed.
 *
 * <p>The request phases ({@link ClassicGroupJoin}, {@link ClassicGroupSync}, {@link ClassicGroupLiveness}) call it; it
 * never calls them. Timers find their group again by id through the {@link ClassicGroupContext}, since the group may
 * have been unloaded or replaced meanwhile.
 *
 * <p>Session, rebalance and sync timeouts are liveness deadlines (DESIGN.md): when a jump of the manual clock passes
 * one, a member is removed only if it is also silent in wall time, as its {@link MemberLiveness} tells; a member still
 * talking is treated as having heartbeated throughout. Owned by the cluster loop.
 */
public final class ClassicGroupRebalancer {

    private final ClassicGroupContext ctx;
    private final Scheduler scheduler;

    ClassicGroupRebalancer(ClassicGroupContext ctx) {
        this.ctx = ctx;
        this.scheduler = ctx.scheduler();
    }

    static String heartbeatKey(String groupId, String memberId) {
        return "heartbeat-" + groupId + "-" + memberId;
    }

    static String joinKey(String groupId) {
        return "join-" + groupId;
    }

    static String syncKey(String groupId) {
        return "sync-" + groupId;
    }

    // ---- members

    /**
     * Removes a member: its session timer stops, a JoinGroup it is parked on learns UNKNOWN_MEMBER_ID, and the timeline
     * records why. What the group does next is the caller's (see {@link #removeMemberAndUpdateGroup}).
     */
    void removeMember(ClassicGroup group, ClassicGroupMember member, String reason) {
        scheduler.cancel(heartbeatKey(group.groupId(), member.memberId()));
        group.completeJoin(member, JoinResult.error(Errors.UNKNOWN_MEMBER_ID, ""));
        group.remove(member.memberId());
        group.timeline().record(new MemberRemoved(group.groupId(), member.memberId(), member.groupInstanceId(), reason));
    }

    /**
     * Removes a member as a session expiry does, and rebalances, as Kafka's {@code removeMemberAndUpdateClassicGroup}.
     * Also how {@code cluster.group(id).expireMember} removes one.
     *
     * @throws IllegalArgumentException when the member is not in the group
     */
    public void removeMemberAndUpdateGroup(ClassicGroup group, String memberId, String reason) {
        ClassicGroupMember member = group.member(memberId);
        if (member == null) {
            throw new IllegalArgumentException("No member " + memberId + " in group " + group.groupId() + "; members are "
                    + group.allMembers());
        }
        removeMember(group, member, reason);
        if (group.isInState(STABLE) || group.isInState(COMPLETING_REBALANCE)) {
            maybePrepareRebalanceOrCompleteJoin(group, "removing " + memberId + ": " + reason);
        } else if (group.isInState(PREPARING_REBALANCE) && group.hasAllMembersJoined()) {
            completeJoin(group);
        }
    }

    /**
     * Arms (or re-arms) in cluster time a member's session, a new member's join wait, or the wait of a member pending
     * its rejoin with the id MEMBER_ID_REQUIRED gave it.
     */
    void rescheduleHeartbeat(ClassicGroup group, String memberId, long timeoutMs) {
        String groupId = group.groupId();
        scheduler.scheduleAfter(heartbeatKey(groupId, memberId), timeoutMs, () -> expireHeartbeat(groupId, memberId, false));
    }

    void cancelHeartbeat(ClassicGroup group, String memberId) {
        scheduler.cancel(heartbeatKey(group.groupId(), memberId));
    }

    /**
     * The session (or a new member's join wait) passed in cluster time: the member's {@link MemberLiveness} decides
     * whether it is removed, judged again after the grace of an open connection, or, still talking in wall time, judged
     * again once it could have gone silent (its next heartbeat re-arms the session in cluster time first).
     */
    private void expireHeartbeat(String groupId, String memberId, boolean graceGiven) {
        ClassicGroup group = ctx.groupOrNull(groupId);
        if (group == null || group.isInState(DEAD)) {
            return;
        }
        if (group.isPendingMember(memberId)) {
            group.removePendingMember(memberId);
            if (group.isInState(PREPARING_REBALANCE) && group.hasAllMembersJoined()) {
                completeJoin(group);
            }
            return;
        }
        ClassicGroupMember member = group.member(memberId);
        if (member == null || member.hasSatisfiedHeartbeat()) {
            return;
        }
        MemberLiveness liveness = member.liveness();
        long nowWallMs = scheduler.wallMs();
        switch (liveness.atDeadline(nowWallMs, scheduler.manualClock(), graceGiven)) {
            case GRACE -> scheduler.scheduleWall(heartbeatKey(groupId, memberId), MemberLiveness.CONNECTION_CLOSE_GRACE_MS,
                    () -> expireHeartbeat(groupId, memberId, true));
            case REARM -> {
                // Still talking in wall time: the clock jumped over its heartbeats, it did not miss them.
                group.timeline().record(new SessionRearmed(groupId, member.memberId(), member.groupInstanceId(),
                        liveness.msSinceHeard(nowWallMs), liveness.heartbeatIntervalMs()));
                scheduler.scheduleWall(heartbeatKey(groupId, memberId), liveness.msUntilSilent(nowWallMs) + 1,
                        () -> expireHeartbeat(groupId, memberId, true));
            }
            case EXPIRE -> removeMemberAndUpdateGroup(group, memberId, "session timeout of " + member.sessionTimeoutMs()
                    + " ms expired" + (liveness.isConnected() ? "" : "; its connection to the coordinator closed"));
        }
    }

    // ---- join phase

    void maybePrepareRebalanceOrCompleteJoin(ClassicGroup group, String reason) {
        if (group.canRebalance()) {
            prepareRebalance(group, reason);
        } else {
            maybeCompleteJoinPhase(group);
        }
    }

    void maybeCompleteJoinPhase(ClassicGroup group) {
        if (group.isInState(PREPARING_REBALANCE) && group.previousState() != EMPTY && group.hasAllMembersJoined()) {
            completeJoin(group);
        }
    }

    /** Starts a rebalance: parks nothing itself, but from now on every member must rejoin. */
    void prepareRebalance(ClassicGroup group, String reason) {
        if (group.isInState(COMPLETING_REBALANCE)) {
            resetAndPropagateError(group, Errors.REBALANCE_IN_PROGRESS);
        }
        group.clearPendingSyncMembers();
        scheduler.cancel(syncKey(group.groupId()));
        boolean initial = group.isInState(EMPTY);
        group.timeline().record(new RebalanceStarted(group.groupId(), group.generationId(), reason));
        group.transitionTo(PREPARING_REBALANCE, scheduler.nowMs());
        group.rebalanceStartedWallMs = scheduler.wallMs();
        if (initial) {
            int delay = ctx.classicConfig().initialRebalanceDelayMs();
            int remaining = Math.max(group.rebalanceTimeoutMs() - delay, 0);
            scheduleInitialRebalance(group.groupId(), delay, remaining);
        } else if (group.hasAllMembersJoined()) {
            completeJoin(group);
        } else {
            scheduleJoinTimeout(group);
        }
    }

    private void scheduleJoinTimeout(ClassicGroup group) {
        String groupId = group.groupId();
        scheduler.scheduleAfter(joinKey(groupId), group.rebalanceTimeoutMs(), () -> joinTimedOut(groupId));
    }

    private void scheduleInitialRebalance(String groupId, int delayMs, int remainingMs) {
        scheduler.scheduleAfter(joinKey(groupId), delayMs, () -> {
            ClassicGroup group = ctx.groupOrNull(groupId);
            if (group == null || !group.isInState(PREPARING_REBALANCE)) {
                return;
            }
            if (group.newMemberAdded() && remainingMs != 0) {
                group.setNewMemberAdded(false);
                int newDelay = Math.min(ctx.classicConfig().initialRebalanceDelayMs(), remainingMs);
                scheduleInitialRebalance(groupId, newDelay, Math.max(remainingMs - delayMs, 0));
            } else {
                completeJoin(group);
            }
        });
    }

    /**
     * The rebalance timeout passed in cluster time. A liveness deadline: under a manual clock a member that has not
     * rejoined yet but still heartbeats in wall time gets the rest of its rebalance timeout in wall time (a real client
     * rejoins on its next poll, which a clock jump cannot hurry).
     */
    private void joinTimedOut(String groupId) {
        ClassicGroup group = ctx.groupOrNull(groupId);
        if (group == null || !group.isInState(PREPARING_REBALANCE)) {
            return;
        }
        if (scheduler.manualClock()) {
            long nowWallMs = scheduler.wallMs();
            long elapsedWall = nowWallMs - group.rebalanceStartedWallMs;
            long remainingWall = group.rebalanceTimeoutMs() - elapsedWall;
            boolean someoneTalking = group.notYetRejoinedMembers().stream()
                    .anyMatch(m -> !m.isStatic() && !m.liveness().silentInWallTime(nowWallMs));
            if (someoneTalking && remainingWall > 0) {
                scheduler.scheduleWall(joinKey(groupId), remainingWall, () -> completeJoin(group));
                return;
            }
        }
        completeJoin(group);
    }

    /**
     * Ends the join phase, as Kafka's {@code completeClassicGroupJoin}: removes dynamic members that did not rejoin,
     * starts the next generation and answers every parked JoinGroup.
     */
    void completeJoin(ClassicGroup group) {
        scheduler.cancel(joinKey(group.groupId()));
        if (!group.isInState(PREPARING_REBALANCE)) {
            return;
        }
        for (ClassicGroupMember failed : group.notYetRejoinedMembers()) {
            if (!failed.isStatic()) {
                removeMember(group, failed, "did not rejoin within the rebalance timeout");
            }
        }
        if (!group.maybeElectNewJoinedLeader() && !group.allMembers().isEmpty()) {
            // Nobody rejoined: wait for the session timeouts to remove the silent ones.
            scheduleJoinTimeout(group);
            return;
        }
        group.initNextGeneration(scheduler.nowMs());
        persist(group);
        if (group.isInState(EMPTY)) {
            return;
        }
        group.timeline().record(new GenerationStarted(group.groupId(), group.generationId(), group.protocolName(),
                group.leaderOrNull(), group.allMembers().stream().map(String::valueOf).toList()));
        for (ClassicGroupMember member : List.copyOf(group.allMembers())) {
            boolean leader = group.isLeader(member.memberId());
            group.completeJoin(member, currentGeneration(group, member.memberId(), leader, false));
            rescheduleHeartbeat(group, member.memberId(), member.sessionTimeoutMs());
            member.setNew(false);
            group.addPendingSyncMember(member.memberId());
        }
        schedulePendingSync(group);
    }

    /** The current generation as a JoinGroup answer; the leader's carries every member's metadata. */
    JoinResult currentGeneration(ClassicGroup group, String memberId, boolean withMembers, boolean skipAssignment) {
        List<JoinResult.JoinedMember> members = withMembers ? group.joinedMembers() : List.of();
        return new JoinResult(Errors.NONE, memberId, group.generationId(), group.protocolType(), group.protocolName(),
                group.leaderOrNull(), skipAssignment, members);
    }

    // ---- sync phase

    /**
     * The leader's assignment is in the members: write the group record and, as Kafka, call the group Stable and hand
     * the members their assignment only once it is replicated; if the write fails they get the error and the group
     * rebalances.
     */
    void storeAssignment(ClassicGroup group) {
        int generation = group.generationId();
        ctx.persistGroup(group, error -> {
            if (group.generationId() != generation || !group.isInState(COMPLETING_REBALANCE)) {
                return;
            }
            if (error == Errors.NONE) {
                group.transitionTo(STABLE, scheduler.nowMs());
                recordAssignment(group);
                propagateAssignment(group, Errors.NONE);
            } else {
                resetAndPropagateError(group, error);
                prepareRebalance(group, "the group's assignment could not be written: " + error);
            }
        });
    }

    /**
     * The timeline's record of who owns what in the new generation, for a group of the consumer protocol type whose
     * assignments decode as the consumer's embedded protocol; another protocol's (Connect's) bytes are its own business.
     */
    private static void recordAssignment(ClassicGroup group) {
        if (!ConsumerProtocol.PROTOCOL_TYPE.equals(group.protocolType())) {
            return;
        }
        Map<String, List<String>> partitions = new TreeMap<>();
        try {
            for (ClassicGroupMember m : group.allMembers()) {
                List<String> owned = m.assignment().length == 0 ? List.of()
                        : ConsumerProtocol.deserializeAssignment(ByteBuffer.wrap(m.assignment())).partitions().stream()
                                .map(TopicPartition::toString).sorted().toList();
                partitions.put(m.toString(), owned);
            }
        } catch (RuntimeException undecodable) {
            return;
        }
        group.timeline().record(new AssignmentDistributed(group.groupId(), group.generationId(), partitions));
    }

    /** A rebalance interrupts CompletingRebalance: parked followers learn it and rejoin. */
    private void resetAndPropagateError(ClassicGroup group, Errors error) {
        if (!group.isInState(COMPLETING_REBALANCE)) {
            throw new IllegalStateException("Group " + group.groupId() + " must be in CompletingRebalance to reset its assignment, but is in "
                    + group.state());
        }
        group.allMembers().forEach(m -> m.setAssignment(SyncResult.EMPTY));
        propagateAssignment(group, error);
    }

    private void propagateAssignment(ClassicGroup group, Errors error) {
        for (ClassicGroupMember m : List.copyOf(group.allMembers())) {
            SyncResult result = error == Errors.NONE
                    ? new SyncResult(Errors.NONE, group.protocolType(), group.protocolName(), m.assignment())
                    : SyncResult.error(error);
            if (group.completeSync(m, result)) {
                rescheduleHeartbeat(group, m.memberId(), m.sessionTimeoutMs());
            }
        }
    }

    /** A member's SyncGroup arrived; once every member's has, the sync phase's timer has nothing left to judge. */
    void removePendingSyncMember(ClassicGroup group, String memberId) {
        group.removePendingSyncMember(memberId);
        if (group.pendingSyncMembers().isEmpty()) {
            scheduler.cancel(syncKey(group.groupId()));
        }
    }

    private void schedulePendingSync(ClassicGroup group) {
        String groupId = group.groupId();
        int generation = group.generationId();
        long startedWall = scheduler.wallMs();
        scheduler.scheduleAfter(syncKey(groupId), group.rebalanceTimeoutMs(), () -> syncTimedOut(groupId, generation, startedWall));
    }

    /**
     * The rebalance timeout passed without every member's SyncGroup. A liveness deadline: under a manual clock, members
     * still talking in wall time get the rest of the timeout in wall time.
     */
    private void syncTimedOut(String groupId, int generation, long startedWall) {
        ClassicGroup group = ctx.groupOrNull(groupId);
        if (group == null || group.generationId() != generation
                || !(group.isInState(COMPLETING_REBALANCE) || group.isInState(STABLE)) || group.pendingSyncMembers().isEmpty()) {
            return;
        }
        if (scheduler.manualClock()) {
            long nowWallMs = scheduler.wallMs();
            long remainingWall = group.rebalanceTimeoutMs() - (nowWallMs - startedWall);
            boolean someoneTalking = group.pendingSyncMembers().stream().map(group::member)
                    .anyMatch(m -> m != null && !m.liveness().silentInWallTime(nowWallMs));
            if (someoneTalking && remainingWall > 0) {
                scheduler.scheduleWall(syncKey(groupId), remainingWall,
                        () -> syncTimedOut(groupId, generation, startedWall - group.rebalanceTimeoutMs()));
                return;
            }
        }
        Set<String> missing = Set.copyOf(group.pendingSyncMembers());
        for (String memberId : missing) {
            removeMember(group, group.member(memberId), "no SyncGroup within the rebalance timeout");
        }
        prepareRebalance(group, "removing " + missing + " on pending sync expiration");
    }

    // ---- persistence and loading

    /** Persists an Empty or Stable group without waiting, as Kafka does after a join ends or a static member returns. */
    void persist(ClassicGroup group) {
        if (group.isInState(EMPTY) || group.isInState(STABLE)) {
            ctx.persistGroup(group, error -> { });
        }
    }

    /**
     * The group was just read back by a new coordinator: its members get a full session to find it and heartbeat, as
     * Kafka's {@code onLoaded} arms their timers; those that never do are removed and the group rebalances.
     */
    public void onLoaded(ClassicGroup group) {
        for (ClassicGroupMember m : group.allMembers()) {
            rescheduleHeartbeat(group, m.memberId(), m.sessionTimeoutMs());
        }
    }

    /** The group's partition moved away: parked requests learn NOT_COORDINATOR and its timers stop. */
    public void unload(ClassicGroup group) {
        for (ClassicGroupMember m : List.copyOf(group.allMembers())) {
            group.completeJoin(m, JoinResult.error(Errors.NOT_COORDINATOR, m.memberId()));
            group.completeSync(m, SyncResult.error(Errors.NOT_COORDINATOR));
            scheduler.cancel(heartbeatKey(group.groupId(), m.memberId()));
        }
        scheduler.cancel(joinKey(group.groupId()));
        scheduler.cancel(syncKey(group.groupId()));
    }
}
