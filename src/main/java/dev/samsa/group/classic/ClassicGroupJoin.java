package dev.samsa.group.classic;

import static dev.samsa.group.classic.ClassicGroupState.COMPLETING_REBALANCE;
import static dev.samsa.group.classic.ClassicGroupState.DEAD;
import static dev.samsa.group.classic.ClassicGroupState.EMPTY;
import static dev.samsa.group.classic.ClassicGroupState.PREPARING_REBALANCE;
import static dev.samsa.group.classic.ClassicGroupState.STABLE;

import dev.samsa.event.MemberJoined;
import dev.samsa.event.StaticMemberReplaced;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.protocol.Errors;

/**
 * JoinGroup, as Kafka's {@code classicGroupJoin*}: new dynamic members get MEMBER_ID_REQUIRED (v4+) and are pending
 * until they rejoin with it; static members take over their instance id's place; a join that changes the group starts
 * a rebalance. The rebalance itself (parking JoinGroups until every member has joined or the rebalance timeout passes,
 * the initial delay, completing the phase) is the {@link ClassicGroupRebalancer}'s.
 */
public final class ClassicGroupJoin {

    private final ClassicGroupContext ctx;
    private final ClassicGroupRebalancer rebalancer;

    ClassicGroupJoin(ClassicGroupContext ctx, ClassicGroupRebalancer rebalancer) {
        this.ctx = ctx;
        this.rebalancer = rebalancer;
    }

    /** Handles one JoinGroup for {@code group} (created by the coordinator when new); answers through {@code respond}. */
    public void join(ClassicGroup group, JoinRequest req, Consumer<JoinResult> respond) {
        boolean unknown = req.memberId().isEmpty();
        if (!acceptJoiningMember(group, req.memberId())) {
            if (group.hasMember(req.memberId())) {
                rebalancer.removeMemberAndUpdateGroup(group, req.memberId(), "group.max.size reached");
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
        int max = ctx.classicConfig().maxSize();
        return switch (group.state()) {
            case EMPTY, DEAD -> true;
            case PREPARING_REBALANCE -> (group.hasMember(memberId) && group.member(memberId).isAwaitingJoin())
                    || group.numAwaitingJoin() < max;
            case COMPLETING_REBALANCE, STABLE -> group.hasMember(memberId) || group.numMembers() < max;
        };
    }

    private void joinNewMember(ClassicGroup group, JoinRequest req, Consumer<JoinResult> respond) {
        String prefix = req.groupInstanceId() != null ? req.groupInstanceId() : req.clientId();
        String newMemberId = prefix + "-" + ctx.newMemberUuid();
        if (req.groupInstanceId() != null) {
            String existing = group.staticMemberId(req.groupInstanceId());
            if (existing != null) {
                updateStaticMember(group, req, existing, newMemberId, respond);
            } else {
                addMember(group, req, newMemberId, respond);
            }
        } else if (req.requireKnownMemberId()) {
            group.addPendingMember(newMemberId);
            rebalancer.rescheduleHeartbeat(group, newMemberId, req.sessionTimeoutMs());
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
        member.heard(req.clientHost(), ctx.scheduler().wallMs());
        switch (group.state()) {
            case PREPARING_REBALANCE -> updateMemberThenRebalance(group, member, req, respond,
                    "member " + memberId + " joins during PreparingRebalance");
            case COMPLETING_REBALANCE -> {
                if (member.matches(req.protocols())) {
                    // It lost the first answer: the current generation again.
                    respond.accept(rebalancer.currentGeneration(group, memberId, group.isLeader(memberId), false));
                } else {
                    updateMemberThenRebalance(group, member, req, respond, "member " + memberId + " changed its metadata");
                }
            }
            case STABLE -> {
                if (group.isLeader(memberId) || !member.matches(req.protocols())) {
                    updateMemberThenRebalance(group, member, req, respond, (group.isLeader(memberId) ? "leader " : "member ")
                            + memberId + " rejoins; client reason: " + req.reason());
                } else {
                    respond.accept(rebalancer.currentGeneration(group, memberId, false, false));
                }
            }
            default -> respond.accept(JoinResult.error(Errors.UNKNOWN_MEMBER_ID, memberId));
        }
    }

    private void addMember(ClassicGroup group, JoinRequest req, String memberId, Consumer<JoinResult> respond) {
        ClassicGroupMember member = new ClassicGroupMember(memberId, req.groupInstanceId(), req.clientId(), req.clientHost(),
                req.rebalanceTimeoutMs(), req.sessionTimeoutMs(), req.protocolType(), req.protocols(), ctx.scheduler().wallMs());
        member.setNew(true);
        member.heard(req.clientHost(), ctx.scheduler().wallMs());
        if (group.isInState(PREPARING_REBALANCE) && group.previousState() == EMPTY) {
            group.setNewMemberAdded(true);
        }
        group.add(member, respond);
        group.timeline().record(new MemberJoined(group.groupId(), member.memberId(), member.groupInstanceId(), req.clientId()));
        // A new member parked in JoinGroup cannot heartbeat; Kafka bounds its wait instead of its session.
        rebalancer.rescheduleHeartbeat(group, memberId, ctx.classicConfig().newMemberJoinTimeoutMs());
        rebalancer.maybePrepareRebalanceOrCompleteJoin(group, "adding member " + memberId + "; client reason: " + req.reason());
    }

    private void updateMemberThenRebalance(ClassicGroup group, ClassicGroupMember member, JoinRequest req,
                                           Consumer<JoinResult> respond, String reason) {
        group.updateMember(member, req.protocols(), req.rebalanceTimeoutMs(), req.sessionTimeoutMs(), respond);
        rebalancer.maybePrepareRebalanceOrCompleteJoin(group, reason);
    }

    /** A static member restarted with a new member id: it takes over its old place, without a rebalance if Stable. */
    private void updateStaticMember(ClassicGroup group, JoinRequest req, String oldMemberId, String newMemberId,
                                    Consumer<JoinResult> respond) {
        rebalancer.cancelHeartbeat(group, oldMemberId);
        ClassicGroupMember member = group.replaceStaticMember(req.groupInstanceId(), oldMemberId, newMemberId, ctx.scheduler().wallMs());
        group.timeline().record(new StaticMemberReplaced(group.groupId(), req.groupInstanceId(), oldMemberId, newMemberId));
        rebalancer.rescheduleHeartbeat(group, newMemberId, member.sessionTimeoutMs());
        group.updateMember(member, req.protocols(), req.rebalanceTimeoutMs(), req.sessionTimeoutMs(), respond);
        rebalancer.persist(group);
        if (group.isInState(STABLE)) {
            if (group.selectProtocol().equals(group.protocolName())) {
                boolean leader = group.isLeader(newMemberId);
                if (req.supportsSkippingAssignment()) {
                    group.completeJoin(member, rebalancer.currentGeneration(group, newMemberId, leader, leader));
                } else {
                    group.completeJoin(member, new JoinResult(Errors.NONE, newMemberId, group.generationId(), group.protocolType(),
                            group.protocolName(), group.leaderOrNull(), false, List.of()));
                }
            } else {
                rebalancer.maybePrepareRebalanceOrCompleteJoin(group, "static member " + req.groupInstanceId() + " changed protocols");
            }
        } else if (group.isInState(COMPLETING_REBALANCE)) {
            // The leader may have assigned the old member id already: rebalance so the new id gets an assignment.
            rebalancer.prepareRebalance(group, "static member " + req.groupInstanceId() + " rejoined during CompletingRebalance");
        } else if (group.isInState(PREPARING_REBALANCE)) {
            rebalancer.maybeCompleteJoinPhase(group);
        } else {
            throw new IllegalStateException("Group " + group.groupId() + " in state " + group.state()
                    + " cannot have static member " + req.groupInstanceId());
        }
    }
}
