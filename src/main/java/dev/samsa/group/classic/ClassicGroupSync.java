package dev.samsa.group.classic;

import static dev.samsa.group.classic.ClassicGroupState.COMPLETING_REBALANCE;
import static dev.samsa.group.classic.ClassicGroupState.PREPARING_REBALANCE;
import static dev.samsa.group.classic.ClassicGroupState.STABLE;

import dev.samsa.event.MemberRemoved;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.protocol.Errors;

/**
 * The sync phase, as Kafka's {@code classicGroupSync}: followers are parked until the leader's SyncGroup carries the
 * assignment; then every member gets its part and the group is Stable. Members that send no SyncGroup within the
 * rebalance timeout ("sync-&lt;group&gt;") are removed and the group rebalances.
 */
public final class ClassicGroupSync {

    private final ClassicGroups flows;
    private final ClassicGroupContext ctx;

    ClassicGroupSync(ClassicGroups flows) {
        this.flows = flows;
        this.ctx = flows.context;
    }

    /**
     * @param assignments the leader's assignment by member id; ignored from followers
     */
    public void sync(ClassicGroup group, String memberId, String groupInstanceId, int generationId, String protocolType,
                     String protocolName, Map<String, byte[]> assignments, String connection, Consumer<SyncResult> respond) {
        if (group == null || group.isInState(ClassicGroupState.EMPTY) || group.isInState(ClassicGroupState.DEAD)) {
            respond.accept(SyncResult.error(Errors.UNKNOWN_MEMBER_ID));
            return;
        }
        try {
            group.throwIfMemberIsInvalid(memberId, groupInstanceId);
        } catch (ApiException e) {
            respond.accept(SyncResult.error(Errors.forException(e)));
            return;
        }
        if (generationId != group.generationId()) {
            respond.accept(SyncResult.error(Errors.ILLEGAL_GENERATION));
            return;
        }
        if ((protocolType != null && !protocolType.equals(group.protocolType()))
                || (protocolName != null && !protocolName.equals(group.protocolName()))) {
            respond.accept(SyncResult.error(Errors.INCONSISTENT_GROUP_PROTOCOL));
            return;
        }
        ClassicGroupMember member = group.member(memberId);
        member.heard(connection, ctx.wallMs());
        if (group.isInState(PREPARING_REBALANCE)) {
            respond.accept(SyncResult.error(Errors.REBALANCE_IN_PROGRESS));
        } else if (group.isInState(COMPLETING_REBALANCE)) {
            member.setAwaitingSync(respond);
            group.removePendingSyncMember(memberId);
            if (group.isLeader(memberId)) {
                Map<String, byte[]> all = new HashMap<>();
                for (ClassicGroupMember m : group.allMembers()) {
                    all.put(m.memberId(), assignments.getOrDefault(m.memberId(), SyncResult.EMPTY));
                }
                group.allMembers().forEach(m -> m.setAssignment(all.get(m.memberId())));
                // As Kafka: the group is Stable, and members learn their assignment, once the group record with
                // the assignment is replicated; if the write fails they get the error and the group rebalances.
                int generation = group.generationId();
                ctx.persistGroup().accept(group, error -> {
                    if (group.generationId() != generation || !group.isInState(COMPLETING_REBALANCE)) {
                        return;
                    }
                    if (error == Errors.NONE) {
                        group.transitionTo(STABLE, ctx.nowMs());
                        propagate(group, Errors.NONE);
                    } else {
                        resetAndPropagateError(group, error);
                        flows.join.prepareRebalance(group, "the group's assignment could not be written: " + error);
                    }
                });
            }
        } else if (group.isInState(STABLE)) {
            group.removePendingSyncMember(memberId);
            respond.accept(new SyncResult(Errors.NONE, group.protocolType(), group.protocolName(), member.assignment()));
        }
    }

    /** A rebalance interrupts CompletingRebalance: parked followers learn it and rejoin. */
    void resetAndPropagateError(ClassicGroup group, Errors error) {
        if (!group.isInState(COMPLETING_REBALANCE)) {
            throw new IllegalStateException("Group " + group.groupId() + " must be in CompletingRebalance to reset its assignment, but is in "
                    + group.state());
        }
        group.allMembers().forEach(m -> m.setAssignment(SyncResult.EMPTY));
        propagate(group, error);
    }

    private void propagate(ClassicGroup group, Errors error) {
        for (ClassicGroupMember m : List.copyOf(group.allMembers())) {
            SyncResult result = error == Errors.NONE
                    ? new SyncResult(Errors.NONE, group.protocolType(), group.protocolName(), m.assignment())
                    : SyncResult.error(error);
            if (group.completeSync(m, result)) {
                flows.liveness.rescheduleHeartbeat(group, m, m.sessionTimeoutMs());
            }
        }
    }

    void schedulePendingSync(ClassicGroup group) {
        String groupId = group.groupId();
        int generation = group.generationId();
        long startedWall = ctx.wallMs();
        ctx.scheduler().scheduleAfter(ClassicGroupContext.syncKey(groupId), group.rebalanceTimeoutMs(),
                () -> syncTimedOut(groupId, generation, startedWall));
    }

    /**
     * The rebalance timeout passed without every member's SyncGroup. A liveness deadline: under a manual clock, members
     * still talking in wall time get the rest of the timeout in wall time.
     */
    private void syncTimedOut(String groupId, int generation, long startedWall) {
        ClassicGroup group = ctx.groups().apply(groupId);
        if (group == null || group.generationId() != generation
                || !(group.isInState(COMPLETING_REBALANCE) || group.isInState(STABLE)) || group.pendingSyncMembers().isEmpty()) {
            return;
        }
        if (ctx.manualClock()) {
            long nowWallMs = ctx.wallMs();
            long remainingWall = group.rebalanceTimeoutMs() - (nowWallMs - startedWall);
            boolean someoneTalking = group.pendingSyncMembers().stream().map(group::member)
                    .anyMatch(m -> m != null && !m.silentInWallTime(nowWallMs));
            if (someoneTalking && remainingWall > 0) {
                ctx.scheduler().scheduleWall(ClassicGroupContext.syncKey(groupId), remainingWall,
                        () -> syncTimedOut(groupId, generation, startedWall - group.rebalanceTimeoutMs()));
                return;
            }
        }
        Set<String> missing = Set.copyOf(group.pendingSyncMembers());
        for (String memberId : missing) {
            group.remove(memberId);
            ctx.scheduler().cancel(ClassicGroupContext.heartbeatKey(groupId, memberId));
            group.timeline().record(new MemberRemoved(groupId, memberId, null, "no SyncGroup within the rebalance timeout"));
        }
        flows.join.prepareRebalance(group, "removing " + missing + " on pending sync expiration");
    }
}
