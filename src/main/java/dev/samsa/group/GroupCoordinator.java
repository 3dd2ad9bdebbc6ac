package dev.samsa.group;

import dev.samsa.cluster.BrokerConfigs;
import dev.samsa.cluster.ClusterState;
import dev.samsa.cluster.Partition;
import dev.samsa.cluster.Topic;
import dev.samsa.coordinator.CoordinatorRuntime;
import dev.samsa.event.CoordinatorUnloaded;
import dev.samsa.group.classic.ClassicGroup;
import dev.samsa.group.classic.ClassicGroupLiveness;
import dev.samsa.group.classic.ClassicGroupState;
import dev.samsa.group.classic.ClassicGroups;
import dev.samsa.group.classic.JoinRequest;
import dev.samsa.group.classic.JoinResult;
import dev.samsa.group.classic.SyncResult;
import dev.samsa.group.modern.consumer.ClassicProtocolMembers;
import dev.samsa.group.modern.consumer.ConsumerGroup;
import dev.samsa.group.modern.consumer.ConsumerGroups;
import dev.samsa.group.modern.consumer.HeartbeatRequest;
import dev.samsa.group.modern.consumer.HeartbeatResult;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.CoordinatorNotAvailableException;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.GroupNotEmptyException;
import org.apache.kafka.common.protocol.Errors;

/**
 * The group coordinator of the whole cluster: a group lives in its {@code __consumer_offsets} partition
 * ({@code abs(groupId.hashCode()) % offsets.topic.num.partitions}, Kafka's rule), whose leader is the group's
 * coordinator. The {@link CoordinatorRuntime} routes it there and holds one {@link GroupCoordinatorShard} per partition,
 * loaded when the partition gets a leader; every state change is appended to the partition's log through the runtime
 * ({@link GroupCoordinatorContext}). Owned by the cluster loop; takes no locks.
 *
 * <p>This class is the entry point the handlers and the inspection API use. The classic protocol's requests go to
 * {@link ClassicProtocolRequests} (on {@link ClassicGroups}), the KIP-848 consumer protocol's to
 * {@link ConsumerProtocolRequests} (on {@link ConsumerGroups}), the offsets to the {@link OffsetStore}. Consumer
 * groups live beside the classic ones in the shard; a group id names a group of one kind. An empty classic group (one
 * known by its offsets only) becomes a consumer group when a consumer-protocol member joins, as Kafka converts it.
 */
public final class GroupCoordinator {

    public static final String OFFSETS_TOPIC = "__consumer_offsets";

    private final ClusterState cluster;
    private final GroupCoordinatorContext context;
    private final ClassicGroups classic;
    private final ConsumerGroups consumer;
    private final ClassicProtocolRequests classicRequests;
    private final ConsumerProtocolRequests consumerRequests;
    private final OffsetStore offsets;

    /** Registers with {@code cluster}'s leadership changes: from now on, a partition's new leader loads its shard. */
    public GroupCoordinator(ClusterState cluster) {
        this.cluster = cluster;
        this.context = new GroupCoordinatorContext(cluster, new CoordinatorRuntime.Lifecycle<>() {
            @Override
            public GroupCoordinatorShard newShard(int partition, int brokerId) {
                return new GroupCoordinatorShard(partition, brokerId, cluster.timeline(), cluster.nowMs(), cluster.scheduler().wallMs());
            }

            @Override
            public void onLoaded(GroupCoordinatorShard shard) {
                GroupCoordinator.this.onLoaded(shard);
            }

            @Override
            public void onUnloaded(GroupCoordinatorShard shard) {
                GroupCoordinator.this.onUnloaded(shard);
            }
        });
        this.classic = new ClassicGroups(context);
        this.consumer = new ConsumerGroups(context, cluster.timeline());
        ClassicProtocolMembers classicMembers = new ClassicProtocolMembers(context, consumer);
        this.classicRequests = new ClassicProtocolRequests(cluster, context, classic, consumer, classicMembers);
        this.consumerRequests = new ConsumerProtocolRequests(cluster, context, classic, consumer, classicMembers);
        this.offsets = new OffsetStore(context, classic.liveness());
        cluster.replicaManager().addTxnMarkerListener(this::onTxnMarker);
    }

    // ---- routing

    /**
     * FindCoordinator: the leader of the group's offsets partition, creating {@code __consumer_offsets} on first need.
     *
     * @throws CoordinatorNotAvailableException when the topic cannot be created or the partition has no leader
     */
    public int findCoordinator(int brokerId, String groupId) {
        Topic topic = cluster.metadata().topic(OFFSETS_TOPIC);
        if (topic == null) {
            BrokerConfigs c = context.configs(brokerId);
            try {
                topic = cluster.metadata().createTopic(OFFSETS_TOPIC, c.getInt("offsets.topic.num.partitions"),
                        c.getInt("offsets.topic.replication.factor"), List.of(), Map.of("cleanup.policy", "compact"), false);
            } catch (ApiException e) {
                throw new CoordinatorNotAvailableException("Cannot create " + OFFSETS_TOPIC + ": " + e.getMessage());
            }
        }
        Partition p = topic.partition(CoordinatorRuntime.partitionFor(groupId, topic.partitions().size()));
        if (p == null || p.leader() < 0) {
            throw new CoordinatorNotAvailableException("The coordinator partition of group " + groupId + " has no leader");
        }
        return p.leader();
    }

    /** The group's {@code __consumer_offsets} partition, or null before the topic exists. */
    public TopicPartition offsetsPartition(String groupId) {
        Topic topic = cluster.metadata().topic(OFFSETS_TOPIC);
        return topic == null ? null : new TopicPartition(OFFSETS_TOPIC, CoordinatorRuntime.partitionFor(groupId, topic.partitions().size()));
    }

    // ---- shard lifecycle and the events every group hears

    /** Loaded members must heartbeat to this coordinator within their session, as Kafka's onLoaded arms them. */
    private void onLoaded(GroupCoordinatorShard shard) {
        shard.groups.values().forEach(g -> classic.rebalancer().onLoaded(g));
        shard.consumerGroups.values().forEach(consumer::onLoaded);
        offsets.scheduleCleanup(shard);
    }

    /** Parked requests of the shard's groups learn NOT_COORDINATOR, its timers stop. */
    private void onUnloaded(GroupCoordinatorShard shard) {
        for (ClassicGroup g : shard.groups.values()) {
            classic.rebalancer().unload(g);
        }
        shard.consumerGroups.values().forEach(consumer::unload);
        cluster.scheduler().cancel(OffsetStore.cleanupKey(shard.partition));
        cluster.timeline().record(new CoordinatorUnloaded(shard.partition, shard.brokerId));
    }

    /**
     * A transaction marker was appended to a partition: on a {@code __consumer_offsets} partition whose shard its
     * leader holds, the producer's pending offsets become committed (COMMIT) or go (ABORT), by the same code that
     * replays the marker when the shard loads.
     */
    private void onTxnMarker(int brokerId, TopicPartition tp, long producerId, short producerEpoch, boolean committed,
                             long markerOffset) {
        if (!tp.topic().equals(OFFSETS_TOPIC)) {
            return;
        }
        for (GroupCoordinatorShard shard : context.shards()) {
            if (shard.partition == tp.partition() && shard.brokerId == brokerId) {
                shard.replayEndTransactionMarker(markerOffset, producerId, producerEpoch, committed);
            }
        }
    }

    /**
     * A client connection to {@code brokerId} closed. Members of the groups that broker coordinates whose last request
     * came over it are silent from now on, for the liveness rule of a clock jump (DESIGN.md). A member talks to its
     * coordinator only, so the client address within that broker names the connection.
     */
    public void connectionClosed(int brokerId, String clientAddress) {
        for (GroupCoordinatorShard shard : context.shardsOf(brokerId)) {
            shard.groups.values().forEach(g -> classic.liveness().connectionClosed(g, clientAddress));
            shard.consumerGroups.values().forEach(g -> consumer.connectionClosed(g, clientAddress));
        }
    }

    /** Makes a member's session expire now, for tests ({@code cluster.group(id).expireMember}). */
    public void expireMember(String groupId, String memberId) {
        ConsumerGroup consumerGroup = consumerGroupOrNull(groupId);
        if (consumerGroup != null) {
            if (consumerGroup.memberOrNull(memberId) == null) {
                throw new IllegalArgumentException("No member " + memberId + " in group " + groupId);
            }
            consumer.removeMember(consumerGroup, memberId, "expired on purpose by the test");
            context.persistConsumerGroup(consumerGroup, error -> { });
            return;
        }
        ClassicGroup group = groupOrNull(groupId);
        if (group == null) {
            throw new IllegalArgumentException("No group " + groupId);
        }
        classic.rebalancer().removeMemberAndUpdateGroup(group, memberId, "expired on purpose by the test");
    }

    // ---- classic protocol, see ClassicProtocolRequests

    /** JoinGroup; the answer goes to {@code respond}, now or when the join phase completes. */
    public void joinGroup(int brokerId, JoinRequest req, Consumer<JoinResult> respond) {
        classicRequests.joinGroup(brokerId, req, respond);
    }

    /** SyncGroup from a client at {@code clientAddress}; the answer goes to {@code respond}. */
    public void syncGroup(int brokerId, String groupId, String memberId, String instanceId, int generation, String protocolType,
                          String protocolName, Map<String, byte[]> assignments, String clientAddress, Consumer<SyncResult> respond) {
        classicRequests.syncGroup(brokerId, groupId, memberId, instanceId, generation, protocolType, protocolName, assignments,
                clientAddress, respond);
    }

    /**
     * Heartbeat from a client at {@code clientAddress}.
     *
     * @throws ApiException the error Kafka answers the heartbeat with
     */
    public void heartbeat(int brokerId, String groupId, String memberId, String instanceId, int generation, String clientAddress) {
        classicRequests.heartbeat(brokerId, groupId, memberId, instanceId, generation, clientAddress);
    }

    /**
     * @throws ApiException for the whole request: UNKNOWN_MEMBER_ID when the group does not exist, COORDINATOR_NOT_AVAILABLE when it is dead
     */
    public List<Errors> leaveGroup(int brokerId, String groupId, List<ClassicGroupLiveness.Leaving> leaving) {
        return classicRequests.leaveGroup(brokerId, groupId, leaving);
    }

    /** DescribeGroups: the group, or null when it does not exist (Kafka answers Dead with no members). */
    public ClassicGroup describeGroup(int brokerId, String groupId) {
        return classicRequests.describeGroup(brokerId, groupId);
    }

    /** ListGroups on one broker: the groups of the partitions it coordinates. */
    public List<ClassicGroup> listGroups(int brokerId) {
        return classicRequests.listGroups(brokerId);
    }

    // ---- consumer protocol (KIP-848), see ConsumerProtocolRequests

    /**
     * ConsumerGroupHeartbeat; {@code respond} hears the result and NONE once the group's record is replicated, or null
     * and the coordinator error.
     *
     * @throws ApiException what Kafka answers the heartbeat with, before anything changed
     */
    public void consumerGroupHeartbeat(int brokerId, HeartbeatRequest req, BiConsumer<HeartbeatResult, Errors> respond) {
        consumerRequests.consumerGroupHeartbeat(brokerId, req, respond);
    }

    /**
     * ConsumerGroupDescribe of one group.
     *
     * @throws GroupIdNotFoundException when there is no such group, or it is a classic group
     */
    public ConsumerGroup describeConsumerGroup(int brokerId, String groupId) {
        return consumerRequests.describeConsumerGroup(brokerId, groupId);
    }

    /**
     * OffsetFetch v9+ from a member of a consumer group checks its epoch (nothing to check for a classic group).
     *
     * @throws ApiException UNKNOWN_MEMBER_ID or STALE_MEMBER_EPOCH, and the routing errors
     */
    public void throwIfOffsetFetchIsInvalid(int brokerId, String groupId, String memberId, int memberEpoch) {
        consumerRequests.throwIfOffsetFetchIsInvalid(brokerId, groupId, memberId, memberEpoch);
    }

    /** The server assignor a consumer group's next target assignment uses. */
    public String assignorName(ConsumerGroup group) {
        return consumerRequests.assignorName(group);
    }

    /** ListGroups on one broker: the consumer groups of the partitions it coordinates. */
    public List<ConsumerGroup> listConsumerGroups(int brokerId) {
        return consumerRequests.listConsumerGroups(brokerId);
    }

    /** The random part of a new member id, from the cluster's seeded generator. */
    public String newMemberUuid() {
        return context.newMemberUuid();
    }

    // ---- offsets

    public OffsetStore offsets() {
        return offsets;
    }

    /** See {@link CoordinatorRuntime#whenReplicated}: NONE, NOT_COORDINATOR or COORDINATOR_NOT_AVAILABLE. */
    public void whenReplicated(CoordinatorRuntime.Write write, Consumer<Errors> done) {
        context.whenReplicated(write, done);
    }

    // ---- admin

    /**
     * DeleteGroups for one group.
     *
     * @throws GroupIdNotFoundException when it does not exist
     * @throws GroupNotEmptyException when it has members
     */
    public void deleteGroup(int brokerId, String groupId) {
        GroupCoordinatorShard shard = context.shardFor(brokerId, groupId);
        ConsumerGroup consumerGroup = shard.consumerGroups.get(groupId);
        if (consumerGroup != null) {
            if (consumerGroup.numMembers() > 0) {
                throw new GroupNotEmptyException("Group " + groupId + " still has members; stop its consumers first.");
            }
            offsets.deleteAll(shard, groupId);
            context.removeGroup(shard, consumerGroup, "deleted");
            return;
        }
        ClassicGroup group = shard.groups.get(groupId);
        if (group == null || group.isInState(ClassicGroupState.DEAD)) {
            throw new GroupIdNotFoundException("Group " + groupId + " does not exist.");
        }
        if (!group.isInState(ClassicGroupState.EMPTY)) {
            throw new GroupNotEmptyException("Group " + groupId + " still has members; stop its consumers first.");
        }
        offsets.deleteAll(shard, groupId);
        context.removeGroup(shard, group, "deleted");
    }

    // ---- inspection

    /** The group if its shard is loaded, or null; a pure read, for the inspection API. */
    public ClassicGroup groupOrNull(String groupId) {
        return context.groupOrNull(groupId);
    }

    /** The consumer group if its shard is loaded, or null; a pure read, for the inspection API. */
    public ConsumerGroup consumerGroupOrNull(String groupId) {
        return context.consumerGroupOrNull(groupId);
    }

    /** Committed offsets of a group if its shard is loaded; a pure read, for the inspection API. */
    public Map<TopicPartition, CommittedOffset> committed(String groupId) {
        GroupCoordinatorShard shard = context.shardOrNull(groupId);
        return shard == null ? Map.of() : Map.copyOf(shard.offsets(groupId));
    }

    /** Offsets that open transactions hold for a group if its shard is loaded; a pure read, for the inspection API. */
    public Set<TopicPartition> pendingTransactionalOffsets(String groupId) {
        GroupCoordinatorShard shard = context.shardOrNull(groupId);
        return shard == null ? Set.of() : Set.copyOf(shard.pending.partitions(groupId));
    }

    /**
     * The partitions, by group, that {@code producerId}'s open transaction holds offsets of, in every loaded shard; a
     * pure read, for the inspection API.
     */
    public Map<String, Set<TopicPartition>> pendingTransactionalOffsetsOf(long producerId) {
        Map<String, Set<TopicPartition>> held = new TreeMap<>();
        context.shards().forEach(shard -> held.putAll(shard.pending.heldBy(producerId)));
        return held;
    }
}
