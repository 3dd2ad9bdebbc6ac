package dev.samsa.group;

import dev.samsa.cluster.ClusterState;
import dev.samsa.event.GroupCreated;
import dev.samsa.group.classic.ClassicGroup;
import dev.samsa.group.classic.ClassicGroupConfig;
import dev.samsa.group.classic.ClassicGroupLiveness;
import dev.samsa.group.classic.ClassicGroupState;
import dev.samsa.group.classic.ClassicGroups;
import dev.samsa.group.classic.JoinRequest;
import dev.samsa.group.classic.JoinResult;
import dev.samsa.group.classic.SyncResult;
import dev.samsa.group.modern.consumer.ClassicProtocolMembers;
import dev.samsa.group.modern.consumer.ConsumerGroup;
import dev.samsa.group.modern.consumer.ConsumerGroups;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.CoordinatorNotAvailableException;
import org.apache.kafka.common.errors.InvalidSessionTimeoutException;
import org.apache.kafka.common.protocol.Errors;

/**
 * The classic group protocol's requests (JoinGroup, SyncGroup, Heartbeat, LeaveGroup, DescribeGroups, ListGroups), as
 * Kafka's {@code GroupMetadataManager.classicGroupJoin} and its siblings: each goes to the group its id names, a
 * classic group ({@link ClassicGroups}) or a consumer group with classic members ({@link ClassicProtocolMembers}). An
 * Empty consumer group becomes a classic group when a classic member joins it. Owned by the cluster loop.
 */
final class ClassicProtocolRequests {

    private final ClusterState cluster;
    private final GroupCoordinatorContext context;
    private final ClassicGroups classic;
    private final ConsumerGroups consumer;
    private final ClassicProtocolMembers classicMembers;

    ClassicProtocolRequests(ClusterState cluster, GroupCoordinatorContext context, ClassicGroups classic,
                            ConsumerGroups consumer, ClassicProtocolMembers classicMembers) {
        this.cluster = cluster;
        this.context = context;
        this.classic = classic;
        this.consumer = consumer;
        this.classicMembers = classicMembers;
    }

    /** JoinGroup; the answer goes to {@code respond}, now or when the join phase completes. */
    void joinGroup(int brokerId, JoinRequest req, Consumer<JoinResult> respond) {
        GroupCoordinatorShard shard = context.shardFor(brokerId, req.groupId());
        ClassicGroupConfig config = context.classicConfig();
        if (req.sessionTimeoutMs() < config.minSessionTimeoutMs() || req.sessionTimeoutMs() > config.maxSessionTimeoutMs()) {
            throw new InvalidSessionTimeoutException("session.timeout.ms " + req.sessionTimeoutMs() + " is outside the broker's "
                    + "group.min.session.timeout.ms " + config.minSessionTimeoutMs() + " .. group.max.session.timeout.ms "
                    + config.maxSessionTimeoutMs());
        }
        ConsumerGroup consumerGroup = shard.consumerGroups.get(req.groupId());
        if (consumerGroup != null && consumerGroup.numMembers() > 0) {
            joinConsumerGroup(consumerGroup, req, respond);
            return;
        }
        if (consumerGroup != null) {
            // As Kafka: an Empty consumer group becomes a classic group when a classic member joins it.
            context.removeGroup(shard, consumerGroup, "converted to a classic group");
        }
        ClassicGroup group = shard.groups.get(req.groupId());
        if (group == null) {
            if (!req.memberId().isEmpty()) {
                respond.accept(JoinResult.error(Errors.UNKNOWN_MEMBER_ID, req.memberId()));
                return;
            }
            group = new ClassicGroup(req.groupId(), cluster.timeline(), cluster.nowMs());
            shard.groups.put(req.groupId(), group);
            cluster.timeline().record(new GroupCreated(req.groupId(), brokerId, false));
        }
        classic.join().join(group, req, respond);
    }

    /** A classic member joins a consumer group (a mixed group); answered once the group's record is replicated. */
    private void joinConsumerGroup(ConsumerGroup group, JoinRequest req, Consumer<JoinResult> respond) {
        classicMembers.join(group, req, (result, answeredMemberId) -> {
            if (result.error() != Errors.NONE) {
                respond.accept(result);
                return;
            }
            context.persistConsumerGroup(group, error -> {
                consumer.answered(group, answeredMemberId);
                respond.accept(error == Errors.NONE ? result : JoinResult.error(error, req.memberId()));
            });
        });
    }

    /** SyncGroup from a client at {@code clientAddress}; the answer goes to {@code respond}. */
    void syncGroup(int brokerId, String groupId, String memberId, String instanceId, int generation, String protocolType,
                   String protocolName, Map<String, byte[]> assignments, String clientAddress, Consumer<SyncResult> respond) {
        GroupCoordinatorShard shard = context.shardFor(brokerId, groupId);
        ConsumerGroup consumerGroup = shard.consumerGroups.get(groupId);
        if (consumerGroup != null) {
            respond.accept(classicMembers.sync(consumerGroup, memberId, instanceId, generation, protocolType, protocolName,
                    clientAddress));
            return;
        }
        ClassicGroup group = shard.groups.get(groupId);
        classic.sync().sync(group, memberId, instanceId, generation, protocolType, protocolName, assignments, clientAddress, respond);
    }

    /**
     * Heartbeat from a client at {@code clientAddress}.
     *
     * @throws ApiException the error Kafka answers the heartbeat with
     */
    void heartbeat(int brokerId, String groupId, String memberId, String instanceId, int generation, String clientAddress) {
        ConsumerGroup consumerGroup = context.shardFor(brokerId, groupId).consumerGroups.get(groupId);
        if (consumerGroup != null) {
            classicMembers.heartbeat(consumerGroup, memberId, instanceId, generation, clientAddress);
            return;
        }
        classic.liveness().heartbeat(context.shardFor(brokerId, groupId).groups.get(groupId), memberId, instanceId, generation,
                clientAddress);
    }

    /**
     * @throws ApiException for the whole request: UNKNOWN_MEMBER_ID when the group does not exist, COORDINATOR_NOT_AVAILABLE when it is dead
     */
    List<Errors> leaveGroup(int brokerId, String groupId, List<ClassicGroupLiveness.Leaving> leaving) {
        GroupCoordinatorShard shard = context.shardFor(brokerId, groupId);
        ConsumerGroup consumerGroup = shard.consumerGroups.get(groupId);
        if (consumerGroup != null) {
            List<Errors> errors = classicMembers.leave(consumerGroup, leaving);
            context.persistConsumerGroup(consumerGroup, error -> { });
            return errors;
        }
        ClassicGroup group = shard.groups.get(groupId);
        if (group == null) {
            return leaving.stream().map(l -> Errors.UNKNOWN_MEMBER_ID).toList();
        }
        if (group.isInState(ClassicGroupState.DEAD)) {
            throw new CoordinatorNotAvailableException("Group " + groupId + " is dead");
        }
        return classic.liveness().leave(group, leaving);
    }

    /** DescribeGroups: the group, or null when it does not exist (Kafka answers Dead with no members). */
    ClassicGroup describeGroup(int brokerId, String groupId) {
        return context.shardFor(brokerId, groupId).groups.get(groupId);
    }

    /** ListGroups on one broker: the groups of the partitions it coordinates. */
    List<ClassicGroup> listGroups(int brokerId) {
        return context.shardsOf(brokerId).stream().flatMap(shard -> shard.groups.values().stream()).toList();
    }
}
