package dev.samsa.group.classic;

import static dev.samsa.group.classic.ClassicGroupState.COMPLETING_REBALANCE;
import static dev.samsa.group.classic.ClassicGroupState.DEAD;
import static dev.samsa.group.classic.ClassicGroupState.EMPTY;
import static dev.samsa.group.classic.ClassicGroupState.PREPARING_REBALANCE;
import static dev.samsa.group.classic.ClassicGroupState.STABLE;

import dev.samsa.event.GenerationStarted;
import dev.samsa.event.MemberJoined;
import dev.samsa.event.MemberRemoved;
import dev.samsa.event.RebalanceStarted;
import dev.samsa.event.StaticMemberReplaced;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.protocol.Errors;

/**
 * The join phase, as Kafka's {@code classicGroupJoin*}, {@code prepareRebalance} and {@code completeClassicGroupJoin}:
 * new dynamic members get MEMBER_ID_REQUIRED (v4+) and are pending until they rejoin with it; static members take over
 * their instance id's place; JoinGroups are parked until every member has joined or the rebalance timeout passes
 * ("join-&lt;group&gt;"); the first rebalance of an Empty group waits group.initial.rebalance.delay.ms for more
 * members. Completing the phase starts the next generation and answers every parked JoinGroup, the leader with all
 * members' metadata.
 */
public final class ClassicGroupJoin {

    private final ClassicGroups flows;
    private final ClassicGroupContext ctx;

    ClassicGroupJoin(ClassicGroups flows) {
        this.flows = flows;
        this.ctx = flows.context;
    }

    /** Handles one JoinGroup for {@code group} (created by the coordinator when new); answers through {@code respond}. */
    public void join(ClassicGroup group, JoinRequest req, Consumer<JoinResult> respond) {
        boolean unknown = req.memberId().isEmpty();
        if (!acceptJoiningMember(group, req.memberId())) {
            if (group.hasMember(req.memberId())) {
                flows.liveness.removeMember(group, req.memberId(), "group.max.size reached");
            } else {
                group.removePendingMember(req.memberId());
            }
            respond.accept(JoinResult.error(Errors.GROUP_MAX_SIZE_REACHED, ""));
            return;
        }
        if (group.isInState(DEAD)) {
            respond.accept(JoinResult.error(Errors.COORDINATOR_NOT_AVAILABLE, req.memberId()));
            return;
        }
        Set<String> names = req.protocols().stream().map(Protocol::name).collect(Collectors.toSet());
        if (!group.supportsProtocols(req.protocolType(), names)) {
            respond.accept(JoinResult.error(Errors.INCONSISTENT_GROUP_PROTOCOL, req.memberId()));
            return;
        }
        if (unknown) {
            joinNewMember(group, req, respond);
        } else {
            joinExistingMember(group, req, respond);
        }
    }

    private boolean acceptJoiningMember(ClassicGroup group, String memberId) {
        int max = ctx.config().get().maxSize();
        return switch (group.state()) {
            case EMPTY, DEAD -> true;
            case PREPARING_REBALANCE -> (group.hasMember(memberId) && group.member(memberId).isAwaitingJoin())
                    || group.numAwaitingJoin() < max;
            case COMPLETING_REBALANCE, STABLE -> group.hasMember(memberId) || group.numMembers() < max;
        };
    }

    private void joinNewMember(ClassicGroup group, JoinRequest req, Consumer<JoinResult> respond) {
        String prefix = req.groupInstanceId() != null ? req.groupInstanceId() : req.clientId();
        String newMemberId = prefix + "-" + ctx.uuid().get();
        if (req.groupInstanceId() != null) {
            String existing = group.staticMemberId(req.groupInstanceId());
            if (existing != null) {
                updateStaticMember(group, req, existing, newMemberId, respond);
            } else {
                addMember(group, req, newMemberId, respond);
            }
        } else if (req.requireKnownMemberId()) {
            group.addPendingMember(newMemberId);
            ctx.scheduler().scheduleAfter(ClassicGroupContext.heartbeatKey(group.groupId(), newMemberId), req.sessionTimeoutMs(),
                    () -> flows.liveness.expireHeartbeat(group.groupId(), newMemberId));
            respond.accept(JoinResult.error(Errors.MEMBER_ID_REQUIRED, newMemberId));
        } else {
            addMember(group, req, newMemberId, respond);
        }
    }

    private void joinExistingMember(ClassicGroup group, JoinRequest req, Consumer<JoinResult> respond) {
        String memberId = req.memberId();
        if (group.isPendingMember(memberId)) {
            if (req.groupInstanceId() != null) {
                throw new IllegalStateException("Pending member " + memberId + " of group " + group.groupId()
                        + " cannot have instance id " + req.groupInstanceId());
            }
            addMember(group, req, memberId, respond);
            return;
        }
        try {
            group.throwIfMemberIsInvalid(memberId, req.groupInstanceId());
        } catch (ApiException e) {
            respond.accept(JoinResult.error(Errors.forException(e), memberId));
            return;
        }
        ClassicGroupMember member = group.member(memberId);
        member.heard(req.clientHost(), ctx.wallMs());
        switch (group.state()) {
            case PREPARING_REBALANCE -> updateMemberThenRebalance(group, member, req, respond,
                    "member " + memberId + " joins during PreparingRebalance");
            case COMPLETING_REBALANCE -> {
                if (member.matches(req.protocols())) {
                    // It lost the first answer: the current generation again.
                    respond.accept(currentGeneration(group, memberId, group.isLeader(memberId), false));
                } else {
                    updateMemberThenRebalance(group, member, req, respond, "member " + memberId + " changed its metadata");
                }
            }
            case STABLE -> {
                if (group.isLeader(memberId) || !member.matches(req.protocols())) {
                    updateMemberThenRebalance(group, member, req, respond, (group.isLeader(memberId) ? "leader " : "member ")
                            + memberId + " rejoins; client reason: " + req.reason());
                } else {
                    respond.accept(currentGeneration(group, memberId, false, false));
                }
            }
            default -> respond.accept(JoinResult.error(Errors.UNKNOWN_MEMBER_ID, memberId));
        }
    }

    private JoinResult currentGeneration(ClassicGroup group, String memberId, boolean withMembers, boolean skipAssignment) {
        List<JoinResult.JoinedMember> members = withMembers ? group.joinedMembers() : List.of();
        return new JoinResult(Errors.NONE, memberId, group.generationId(), group.protocolType(), group.protocolName(),
                group.leaderOrNull(), skipAssignment, members);
    }

    private void addMember(ClassicGroup group, JoinRequest req, String memberId, Consumer<JoinResult> respond) {
        ClassicGroupMember member = new ClassicGroupMember(memberId, req.groupInstanceId(), req.clientId(), req.clientHost(),
                req.rebalanceTimeoutMs(), req.sessionTimeoutMs(), req.protocolType(), req.protocols(), ctx.wallMs());
        member.setNew(true);
        member.heard(req.clientHost(), ctx.wallMs());
        if (group.isInState(PREPARING_REBALANCE) && group.previousState() == EMPTY) {
            group.setNewMemberAdded(true);
        }
        group.add(member, respond);
        group.timeline().record(new MemberJoined(group.groupId(), member.memberId(), member.groupInstanceId(), req.clientId()));
        // A new member parked in JoinGroup cannot heartbeat; Kafka bounds its wait instead of its session.
        flows.liveness.rescheduleHeartbeat(group, member, ctx.config().get().newMemberJoinTimeoutMs());
        maybePrepareRebalanceOrCompleteJoin(group, "adding member " + memberId + "; client reason: " + req.reason());
    }

    private void updateMemberThenRebalance(ClassicGroup group, ClassicGroupMember member, JoinRequest req,
                                           Consumer<JoinResult> respond, String reason) {
        group.updateMember(member, req.protocols(), req.rebalanceTimeoutMs(), req.sessionTimeoutMs(), respond);
        maybePrepareRebalanceOrCompleteJoin(group, reason);
    }

    /** A static member restarted with a new member id: it takes over its old place, without a rebalance if Stable. */
    private void updateStaticMember(ClassicGroup group, JoinRequest req, String oldMemberId, String newMemberId,
                                    Consumer<JoinResult> respond) {
        ctx.scheduler().cancel(ClassicGroupContext.heartbeatKey(group.groupId(), oldMemberId));
        ClassicGroupMember member = group.replaceStaticMember(req.groupInstanceId(), oldMemberId, newMemberId, ctx.wallMs());
        group.timeline().record(new StaticMemberReplaced(group.groupId(), req.groupInstanceId(), oldMemberId, newMemberId));
        flows.liveness.rescheduleHeartbeat(group, member, member.sessionTimeoutMs());
        group.updateMember(member, req.protocols(), req.rebalanceTimeoutMs(), req.sessionTimeoutMs(), respond);
        ctx.persist(group);
        if (group.isInState(STABLE)) {
            if (group.selectProtocol().equals(group.protocolName())) {
                boolean leader = group.isLeader(newMemberId);
                if (req.supportsSkippingAssignment()) {
                    group.completeJoin(member, currentGeneration(group, newMemberId, leader, leader));
                } else {
                    group.completeJoin(member, new JoinResult(Errors.NONE, newMemberId, group.generationId(), group.protocolType(),
                            group.protocolName(), group.leaderOrNull(), false, List.of()));
                }
            } else {
                maybePrepareRebalanceOrCompleteJoin(group, "static member " + req.groupInstanceId() + " changed protocols");
            }
        } else if (group.isInState(COMPLETING_REBALANCE)) {
            // The leader may have assigned the old member id already: rebalance so the new id gets an assignment.
            prepareRebalance(group, "static member " + req.groupInstanceId() + " rejoined during CompletingRebalance");
        } else if (group.isInState(PREPARING_REBALANCE)) {
            maybeCompleteJoinPhase(group);
        } else {
            throw new IllegalStateException("Group " + group.groupId() + " in state " + group.state()
                    + " cannot have static member " + req.groupInstanceId());
        }
    }

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
            flows.sync.resetAndPropagateError(group, Errors.REBALANCE_IN_PROGRESS);
        }
        group.clearPendingSyncMembers();
        ctx.scheduler().cancel(ClassicGroupContext.syncKey(group.groupId()));
        boolean initial = group.isInState(EMPTY);
        group.timeline().record(new RebalanceStarted(group.groupId(), group.generationId(), reason));
        group.transitionTo(PREPARING_REBALANCE, ctx.nowMs());
        group.rebalanceStartedWallMs = ctx.wallMs();
        if (initial) {
            int delay = ctx.config().get().initialRebalanceDelayMs();
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
        ctx.scheduler().scheduleAfter(ClassicGroupContext.joinKey(groupId), group.rebalanceTimeoutMs(), () -> joinTimedOut(groupId));
    }

    private void scheduleInitialRebalance(String groupId, int delayMs, int remainingMs) {
        ctx.scheduler().scheduleAfter(ClassicGroupContext.joinKey(groupId), delayMs, () -> {
            ClassicGroup group = ctx.groups().apply(groupId);
            if (group == null || !group.isInState(PREPARING_REBALANCE)) {
                return;
            }
            if (group.newMemberAdded() && remainingMs != 0) {
                group.setNewMemberAdded(false);
                int newDelay = Math.min(ctx.config().get().initialRebalanceDelayMs(), remainingMs);
                scheduleInitialRebalance(groupId, newDelay, Math.max(remainingMs - delayMs, 0));
            } else {
                completeJoin(group);
            }
        });
    }

    /**
     * The rebalance timeout passed in cluster time. It is a liveness deadline (DESIGN.md): under a manual clock a
     * member that has not rejoined yet but still heartbeats in wall time gets the rest of its rebalance timeout in wall
     * time (a real client rejoins on its next poll, which a clock jump cannot hurry).
     */
    private void joinTimedOut(String groupId) {
        ClassicGroup group = ctx.groups().apply(groupId);
        if (group == null || !group.isInState(PREPARING_REBALANCE)) {
            return;
        }
        if (ctx.manualClock()) {
            long nowWallMs = ctx.wallMs();
            long elapsedWall = nowWallMs - group.rebalanceStartedWallMs;
            long remainingWall = group.rebalanceTimeoutMs() - elapsedWall;
            boolean someoneTalking = group.notYetRejoinedMembers().stream()
                    .anyMatch(m -> !m.isStatic() && !m.silentInWallTime(nowWallMs));
            if (someoneTalking && remainingWall > 0) {
                ctx.scheduler().scheduleWall(ClassicGroupContext.joinKey(groupId), remainingWall, () -> completeJoin(group));
                return;
            }
        }
        completeJoin(group);
    }

    /**
     * Ends the join phase: removes dynamic members that did not rejoin, starts the next generation and answers every
     * parked JoinGroup.
     */
    void completeJoin(ClassicGroup group) {
        ctx.scheduler().cancel(ClassicGroupContext.joinKey(group.groupId()));
        if (!group.isInState(PREPARING_REBALANCE)) {
            return;
        }
        for (ClassicGroupMember failed : group.notYetRejoinedMembers()) {
            if (!failed.isStatic()) {
                group.remove(failed.memberId());
                ctx.scheduler().cancel(ClassicGroupContext.heartbeatKey(group.groupId(), failed.memberId()));
                group.timeline().record(new MemberRemoved(group.groupId(), failed.memberId(), failed.groupInstanceId(),
                        "did not rejoin within the rebalance timeout"));
            }
        }
        if (!group.maybeElectNewJoinedLeader() && !group.allMembers().isEmpty()) {
            // Nobody rejoined: wait for the session timeouts to remove the silent ones.
            scheduleJoinTimeout(group);
            return;
        }
        group.initNextGeneration(ctx.nowMs());
        ctx.persist(group);
        if (group.isInState(EMPTY)) {
            return;
        }
        group.timeline().record(new GenerationStarted(group.groupId(), group.generationId(), group.protocolName(),
                group.leaderOrNull(), group.allMembers().stream().map(String::valueOf).toList()));
        for (ClassicGroupMember member : List.copyOf(group.allMembers())) {
            boolean leader = group.isLeader(member.memberId());
            group.completeJoin(member, currentGeneration(group, member.memberId(), leader, false));
            flows.liveness.rescheduleHeartbeat(group, member, member.sessionTimeoutMs());
            member.setNew(false);
            group.addPendingSyncMember(member.memberId());
        }
        flows.sync.schedulePendingSync(group);
    }
}
