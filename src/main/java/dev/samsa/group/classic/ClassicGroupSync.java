package dev.samsa.group.classic;

import static dev.samsa.group.classic.ClassicGroupState.COMPLETING_REBALANCE;
import static dev.samsa.group.classic.ClassicGroupState.PREPARING_REBALANCE;
import static dev.samsa.group.classic.ClassicGroupState.STABLE;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.protocol.Errors;

/**
 * SyncGroup, as Kafka's {@code classicGroupSync}: followers are parked until the leader's SyncGroup carries the
 * assignment, which the {@link ClassicGroupRebalancer} stores and hands out (as it removes members that send no
 * SyncGroup within the rebalance timeout).
 */
public final class ClassicGroupSync {

    private final ClassicGroupContext ctx;
    private final ClassicGroupRebalancer rebalancer;

    ClassicGroupSync(ClassicGroupContext ctx, ClassicGroupRebalancer rebalancer) {
        this.ctx = ctx;
        this.rebalancer = rebalancer;
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
        member.heard(connection, ctx.scheduler().wallMs());
        if (group.isInState(PREPARING_REBALANCE)) {
            respond.accept(SyncResult.error(Errors.REBALANCE_IN_PROGRESS));
        } else if (group.isInState(COMPLETING_REBALANCE)) {
            member.setAwaitingSync(respond);
            rebalancer.removePendingSyncMember(group, memberId);
            if (group.isLeader(memberId)) {
                Map<String, byte[]> all = new HashMap<>();
                for (ClassicGroupMember m : group.allMembers()) {
                    all.put(m.memberId(), assignments.getOrDefault(m.memberId(), SyncResult.EMPTY));
                }
                group.allMembers().forEach(m -> m.setAssignment(all.get(m.memberId())));
                rebalancer.storeAssignment(group);
            }
        } else if (group.isInState(STABLE)) {
            rebalancer.removePendingSyncMember(group, memberId);
            respond.accept(new SyncResult(Errors.NONE, group.protocolType(), group.protocolName(), member.assignment()));
        }
    }
}
