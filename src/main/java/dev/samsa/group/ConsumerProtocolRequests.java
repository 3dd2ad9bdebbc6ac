package dev.samsa.group;

import dev.samsa.cluster.ClusterState;
import dev.samsa.event.GroupCreated;
import dev.samsa.group.classic.ClassicGroup;
import dev.samsa.group.classic.ClassicGroupState;
import dev.samsa.group.classic.ClassicGroups;
import dev.samsa.group.modern.consumer.ClassicProtocolMembers;
import dev.samsa.group.modern.consumer.ConsumerGroup;
import dev.samsa.group.modern.consumer.ConsumerGroups;
import dev.samsa.group.modern.consumer.HeartbeatRequest;
import dev.samsa.group.modern.consumer.HeartbeatResult;
import java.util.List;
import java.util.Locale;
import java.util.function.BiConsumer;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.CoordinatorNotAvailableException;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.protocol.Errors;

/**
 * The KIP-848 consumer protocol's requests (ConsumerGroupHeartbeat, ConsumerGroupDescribe, ListGroups, the member check
 * of OffsetFetch v9+), as Kafka's {@code GroupMetadataManager.consumerGroupHeartbeat} and its siblings, on the
 * {@link ConsumerGroups}. A join creates the group, or converts a classic group of that id: an Empty one is replaced, one
 * with members is upgraded with them once Stable (Kafka's online migration). Owned by the cluster loop.
 */
final class ConsumerProtocolRequests {

    private final ClusterState cluster;
    private final GroupCoordinatorContext context;
    private final ClassicGroups classic;
    private final ConsumerGroups consumer;
    private final ClassicProtocolMembers classicMembers;

    ConsumerProtocolRequests(ClusterState cluster, GroupCoordinatorContext context, ClassicGroups classic,
                             ConsumerGroups consumer, ClassicProtocolMembers classicMembers) {
        this.cluster = cluster;
        this.context = context;
        this.classic = classic;
        this.consumer = consumer;
        this.classicMembers = classicMembers;
    }

    /**
     * ConsumerGroupHeartbeat; {@code respond} hears the result and NONE once the group's record is replicated, or null
     * and the coordinator error. A join (epoch 0) creates the group, or converts an empty classic group of that id.
     *
     * @throws ApiException what Kafka answers the heartbeat with, before anything changed
     */
    void consumerGroupHeartbeat(int brokerId, HeartbeatRequest req, BiConsumer<HeartbeatResult, Errors> respond) {
        GroupCoordinatorShard shard = context.shardFor(brokerId, req.groupId());
        ConsumerGroup group = shard.consumerGroups.get(req.groupId());
        if (group == null) {
            ClassicGroup classicGroup = shard.groups.get(req.groupId());
            if (req.memberEpoch() != HeartbeatRequest.JOIN) {
                throw new GroupIdNotFoundException(classicGroup == null ? "Consumer group " + req.groupId() + " not found."
                        : "Group " + req.groupId() + " is not a consumer group.");
            }
            if (classicGroup != null && !classicGroup.isInState(ClassicGroupState.EMPTY)) {
                throwIfOnlineUpgradeIsNotAllowed(classicGroup);
                classic.rebalancer().unload(classicGroup);
                context.removeGroup(shard, classicGroup, "upgraded to a consumer group");
                group = classicMembers.upgrade(classicGroup, cluster.timeline());
            } else {
                if (classicGroup != null) {
                    context.removeGroup(shard, classicGroup, "converted to a consumer group");
                }
                group = new ConsumerGroup(req.groupId(), cluster.timeline());
                cluster.timeline().record(new GroupCreated(req.groupId(), brokerId, false));
            }
            shard.consumerGroups.put(req.groupId(), group);
        }
        HeartbeatResult result = consumer.heartbeat(group, req);
        ConsumerGroup heartbeated = group;
        context.persistConsumerGroup(group, error -> {
            consumer.answered(heartbeated, result.memberId());
            respond.accept(error == Errors.NONE ? result : null, error);
        });
    }

    /**
     * Kafka's {@code validateOnlineUpgrade}. Samsa also waits for a Stable group, whose members all have their
     * assignment (Kafka would fail the parked joins and syncs of a rebalancing one).
     */
    private void throwIfOnlineUpgradeIsNotAllowed(ClassicGroup group) {
        String policy = context.clusterConfigs().get("group.consumer.migration.policy").toLowerCase(Locale.ROOT);
        String cannot = "Cannot upgrade classic group " + group.groupId() + " to consumer group because ";
        if (!policy.equals("upgrade") && !policy.equals("bidirectional")) {
            throw new GroupIdNotFoundException(cannot + "online upgrade is disabled.");
        }
        if (!group.usesConsumerProtocol()) {
            throw new GroupIdNotFoundException(cannot + "the group does not use the consumer embedded protocol.");
        }
        if (group.numMembers() > context.consumerConfig().maxSize()) {
            throw new GroupIdNotFoundException(cannot + "the group size exceeds the consumer group maximum size.");
        }
        if (!group.isInState(ClassicGroupState.STABLE)) {
            throw new CoordinatorNotAvailableException(cannot + "it is rebalancing; retry once it is Stable.");
        }
    }

    /**
     * ConsumerGroupDescribe of one group, with the name of the assignor it uses.
     *
     * @throws GroupIdNotFoundException when there is no such group, or it is a classic group
     */
    ConsumerGroup describeConsumerGroup(int brokerId, String groupId) {
        GroupCoordinatorShard shard = context.shardFor(brokerId, groupId);
        ConsumerGroup group = shard.consumerGroups.get(groupId);
        if (group == null) {
            throw new GroupIdNotFoundException(shard.groups.containsKey(groupId)
                    ? "Group " + groupId + " is not a consumer group." : "Group " + groupId + " not found.");
        }
        return group;
    }

    /**
     * OffsetFetch v9+ from a member of a consumer group checks its epoch (nothing to check for a classic group).
     *
     * @throws ApiException UNKNOWN_MEMBER_ID or STALE_MEMBER_EPOCH, and the routing errors
     */
    void throwIfOffsetFetchIsInvalid(int brokerId, String groupId, String memberId, int memberEpoch) {
        ConsumerGroup group = context.shardFor(brokerId, groupId).consumerGroups.get(groupId);
        if (group != null) {
            group.throwIfOffsetFetchIsInvalid(memberId, memberEpoch);
        }
    }

    /** The server assignor a consumer group's next target assignment uses. */
    String assignorName(ConsumerGroup group) {
        return consumer.assignorName(group, context.consumerConfig());
    }

    /** ListGroups on one broker: the consumer groups of the partitions it coordinates. */
    List<ConsumerGroup> listConsumerGroups(int brokerId) {
        return context.shardsOf(brokerId).stream().flatMap(shard -> shard.consumerGroups.values().stream()).toList();
    }
}
