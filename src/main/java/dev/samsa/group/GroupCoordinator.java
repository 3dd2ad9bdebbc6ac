package dev.samsa.group;

import dev.samsa.cluster.BrokerConfigs;
import dev.samsa.cluster.ClusterState;
import dev.samsa.cluster.Partition;
import dev.samsa.cluster.Topic;
import dev.samsa.coordinator.CoordinatorRuntime;
import dev.samsa.event.CoordinatorUnloaded;
import dev.samsa.event.GroupCreated;
import dev.samsa.event.GroupRemoved;
import dev.samsa.group.classic.ClassicGroup;
import dev.samsa.group.classic.ClassicGroupConfig;
import dev.samsa.group.classic.ClassicGroupContext;
import dev.samsa.group.classic.ClassicGroupLiveness;
import dev.samsa.group.classic.ClassicGroupState;
import dev.samsa.group.classic.ClassicGroups;
import dev.samsa.group.classic.JoinRequest;
import dev.samsa.group.classic.JoinResult;
import dev.samsa.group.classic.SyncResult;
import dev.samsa.group.modern.TopicMetadata;
import dev.samsa.group.modern.consumer.ClassicProtocolMembers;
import dev.samsa.group.modern.consumer.ConsumerGroup;
import dev.samsa.group.modern.consumer.ConsumerGroupConfig;
import dev.samsa.group.modern.consumer.ConsumerGroupContext;
import dev.samsa.group.modern.consumer.ConsumerGroupRecords;
import dev.samsa.group.modern.consumer.ConsumerGroups;
import dev.samsa.group.modern.consumer.HeartbeatRequest;
import dev.samsa.group.modern.consumer.HeartbeatResult;
import dev.samsa.time.Scheduler;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidGroupIdException;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.CoordinatorNotAvailableException;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.InvalidSessionTimeoutException;
import org.apache.kafka.common.errors.GroupNotEmptyException;
import org.apache.kafka.common.errors.NotCoordinatorException;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.SimpleRecord;

/**
 * The group coordinator of the whole cluster: a group lives in its {@code __consumer_offsets} partition
 * ({@code abs(groupId.hashCode()) % offsets.topic.num.partitions}, Kafka's rule), whose leader is the group's
 * coordinator. The {@link CoordinatorRuntime} routes it there and holds one {@link GroupCoordinatorShard} per partition,
 * loaded when the partition gets a leader; this class hands requests to the classic protocol ({@link ClassicGroups}) and
 * the offsets ({@link OffsetStore}), and appends every state change it makes to the partition's log through the
 * runtime. Owned by the cluster loop; takes no locks.
 *
 * <p>The KIP-848 consumer protocol (ConsumerGroupHeartbeat, {@link ConsumerGroups}) keeps its groups beside the
 * classic ones in the shard; a group id names a group of one kind. An empty classic group (one known by its offsets
 * only) becomes a consumer group when a consumer-protocol member joins, as Kafka converts it.
 */
public final class GroupCoordinator implements ClassicGroupContext, ConsumerGroupContext {

    public static final String OFFSETS_TOPIC = "__consumer_offsets";
    static final int NEW_MEMBER_JOIN_TIMEOUT_MS = 5 * 60 * 1000;

    private final ClusterState cluster;
    private final ClassicGroups classic;
    private final ConsumerGroups consumer;
    private final ClassicProtocolMembers classicMembers;
    private final OffsetStore offsets;
    private final CoordinatorRuntime<GroupCoordinatorShard> runtime;
    private int configBroker = -1;

    /** Registers with {@code cluster}'s leadership changes: from now on, a partition's new leader loads its shard. */
    public GroupCoordinator(ClusterState cluster) {
        this.cluster = cluster;
        this.classic = new ClassicGroups(this);
        this.consumer = new ConsumerGroups(this, cluster.timeline());
        this.classicMembers = new ClassicProtocolMembers(this, consumer);
        this.offsets = new OffsetStore(this);
        this.runtime = new CoordinatorRuntime<>(cluster, OFFSETS_TOPIC, "offsets.commit.timeout.ms", new CoordinatorRuntime.Lifecycle<>() {
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
        cluster.replicaManager().addTxnMarkerListener(this::onTxnMarker);
    }

    ClusterState cluster() {
        return cluster;
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
            BrokerConfigs c = configs(brokerId);
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

    /**
     * The shard of {@code groupId} if {@code brokerId} coordinates it.
     *
     * @throws CoordinatorNotAvailableException before {@code __consumer_offsets} exists
     * @throws NotCoordinatorException when another broker leads the group's partition
     * @throws InvalidGroupIdException for an empty group id, which Kafka refuses before routing the request
     */
    GroupCoordinatorShard shardFor(int brokerId, String groupId) {
        if (groupId == null || groupId.isEmpty()) {
            throw new InvalidGroupIdException("The group id must not be empty");
        }
        GroupCoordinatorShard shard = runtime.activeShard(brokerId, groupId);
        configBroker = brokerId;
        return shard;
    }

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
        for (GroupCoordinatorShard shard : runtime.shards()) {
            if (shard.partition == tp.partition() && shard.brokerId == brokerId) {
                shard.replayEndTransactionMarker(markerOffset, producerId, producerEpoch, committed);
            }
        }
    }

    // ---- classic protocol

    /** JoinGroup; the answer goes to {@code respond}, now or when the join phase completes. */
    public void joinGroup(int brokerId, JoinRequest req, Consumer<JoinResult> respond) {
        GroupCoordinatorShard shard = shardFor(brokerId, req.groupId());
        ClassicGroupConfig config = classicConfig();
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
            removeGroup(shard, consumerGroup, "converted to a classic group");
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
            persistConsumerGroup(group, error -> {
                consumer.answered(group, answeredMemberId);
                respond.accept(error == Errors.NONE ? result : JoinResult.error(error, req.memberId()));
            });
        });
    }

    /** SyncGroup from a client at {@code clientAddress}; the answer goes to {@code respond}. */
    public void syncGroup(int brokerId, String groupId, String memberId, String instanceId, int generation, String protocolType,
                          String protocolName, Map<String, byte[]> assignments, String clientAddress, Consumer<SyncResult> respond) {
        GroupCoordinatorShard shard = shardFor(brokerId, groupId);
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
    public void heartbeat(int brokerId, String groupId, String memberId, String instanceId, int generation, String clientAddress) {
        ConsumerGroup consumerGroup = shardFor(brokerId, groupId).consumerGroups.get(groupId);
        if (consumerGroup != null) {
            classicMembers.heartbeat(consumerGroup, memberId, instanceId, generation, clientAddress);
            return;
        }
        classic.liveness().heartbeat(shardFor(brokerId, groupId).groups.get(groupId), memberId, instanceId, generation,
                clientAddress);
    }

    /**
     * A client connection to {@code brokerId} closed. Members of the groups that broker coordinates whose last request
     * came over it are silent from now on, for the liveness rule of a clock jump (DESIGN.md). A member talks to its
     * coordinator only, so the client address within that broker names the connection.
     */
    public void connectionClosed(int brokerId, String clientAddress) {
        for (GroupCoordinatorShard shard : runtime.shards()) {
            if (shard.brokerId == brokerId) {
                shard.groups.values().forEach(g -> classic.liveness().connectionClosed(g, clientAddress));
                shard.consumerGroups.values().forEach(g -> consumer.connectionClosed(g, clientAddress));
            }
        }
    }

    /**
     * @throws ApiException for the whole request: UNKNOWN_MEMBER_ID when the group does not exist, COORDINATOR_NOT_AVAILABLE when it is dead
     */
    public List<Errors> leaveGroup(int brokerId, String groupId, List<ClassicGroupLiveness.Leaving> leaving) {
        GroupCoordinatorShard shard = shardFor(brokerId, groupId);
        ConsumerGroup consumerGroup = shard.consumerGroups.get(groupId);
        if (consumerGroup != null) {
            List<Errors> errors = classicMembers.leave(consumerGroup, leaving);
            persistConsumerGroup(consumerGroup, error -> { });
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

    /** Makes a member's session expire now, for tests ({@code cluster.group(id).expireMember}). */
    public void expireMember(String groupId, String memberId) {
        ConsumerGroup consumerGroup = consumerGroupOrNull(groupId);
        if (consumerGroup != null) {
            if (consumerGroup.memberOrNull(memberId) == null) {
                throw new IllegalArgumentException("No member " + memberId + " in group " + groupId);
            }
            consumer.removeMember(consumerGroup, memberId, "expired on purpose by the test");
            persistConsumerGroup(consumerGroup, error -> { });
            return;
        }
        ClassicGroup group = groupOrNull(groupId);
        if (group == null) {
            throw new IllegalArgumentException("No group " + groupId);
        }
        classic.rebalancer().removeMemberAndUpdateGroup(group, memberId, "expired on purpose by the test");
    }

    // ---- consumer protocol (KIP-848)

    /**
     * ConsumerGroupHeartbeat; {@code respond} hears the result and NONE once the group's record is replicated, or null
     * and the coordinator error. A join (epoch 0) creates the group, or converts an empty classic group of that id.
     *
     * @throws ApiException what Kafka answers the heartbeat with, before anything changed
     */
    public void consumerGroupHeartbeat(int brokerId, HeartbeatRequest req, BiConsumer<HeartbeatResult, Errors> respond) {
        GroupCoordinatorShard shard = shardFor(brokerId, req.groupId());
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
                removeGroup(shard, classicGroup, "upgraded to a consumer group");
                group = classicMembers.upgrade(classicGroup, cluster.timeline());
            } else {
                if (classicGroup != null) {
                    removeGroup(shard, classicGroup, "converted to a consumer group");
                }
                group = new ConsumerGroup(req.groupId(), cluster.timeline());
                cluster.timeline().record(new GroupCreated(req.groupId(), brokerId, false));
            }
            shard.consumerGroups.put(req.groupId(), group);
        }
        HeartbeatResult result = consumer.heartbeat(group, req);
        ConsumerGroup heartbeated = group;
        persistConsumerGroup(group, error -> {
            consumer.answered(heartbeated, result.memberId());
            respond.accept(error == Errors.NONE ? result : null, error);
        });
    }

    /**
     * Kafka's {@code validateOnlineUpgrade}. Samsa also waits for a Stable group, whose members all have their
     * assignment (Kafka would fail the parked joins and syncs of a rebalancing one).
     */
    private void throwIfOnlineUpgradeIsNotAllowed(ClassicGroup group) {
        String policy = configs(-1).get("group.consumer.migration.policy").toLowerCase(java.util.Locale.ROOT);
        String cannot = "Cannot upgrade classic group " + group.groupId() + " to consumer group because ";
        if (!policy.equals("upgrade") && !policy.equals("bidirectional")) {
            throw new GroupIdNotFoundException(cannot + "online upgrade is disabled.");
        }
        if (!group.usesConsumerProtocol()) {
            throw new GroupIdNotFoundException(cannot + "the group does not use the consumer embedded protocol.");
        }
        if (group.numMembers() > consumerConfig().maxSize()) {
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
    public ConsumerGroup describeConsumerGroup(int brokerId, String groupId) {
        GroupCoordinatorShard shard = shardFor(brokerId, groupId);
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
    public void throwIfOffsetFetchIsInvalid(int brokerId, String groupId, String memberId, int memberEpoch) {
        ConsumerGroup group = shardFor(brokerId, groupId).consumerGroups.get(groupId);
        if (group != null) {
            group.throwIfOffsetFetchIsInvalid(memberId, memberEpoch);
        }
    }

    /** The server assignor a consumer group's next target assignment uses. */
    public String assignorName(ConsumerGroup group) {
        return consumer.assignorName(group, consumerConfig());
    }

    /** ListGroups on one broker: the consumer groups of the partitions it coordinates. */
    public List<ConsumerGroup> listConsumerGroups(int brokerId) {
        List<ConsumerGroup> all = new ArrayList<>();
        for (GroupCoordinatorShard shard : runtime.shards()) {
            if (shard.brokerId == brokerId) {
                all.addAll(shard.consumerGroups.values());
            }
        }
        return all;
    }

    @Override
    public ConsumerGroup consumerGroupOrNull(String groupId) {
        GroupCoordinatorShard shard = runtime.shardOrNull(groupId);
        return shard == null ? null : shard.consumerGroups.get(groupId);
    }

    @Override
    public void persistConsumerGroup(ConsumerGroup group, Consumer<Errors> done) {
        GroupCoordinatorShard shard = runtime.shardOrNull(group.groupId());
        if (shard == null || shard.consumerGroups.get(group.groupId()) != group) {
            done.accept(Errors.NOT_COORDINATOR);
            return;
        }
        SimpleRecord record = ConsumerGroupRecords.record(cluster.nowMs(), group);
        if (record.value().equals(shard.consumerGroupValues.get(group.groupId()))) {
            // A heartbeat that changed nothing writes nothing and is answered at once, as Kafka's.
            done.accept(Errors.NONE);
            return;
        }
        shard.consumerGroupValues.put(group.groupId(), record.value());
        whenReplicated(append(shard, record), done);
    }

    @Override
    public ConsumerGroupConfig consumerConfig() {
        BrokerConfigs c = configs(-1);
        return new ConsumerGroupConfig(c.getInt("group.consumer.heartbeat.interval.ms"),
                c.getInt("group.consumer.session.timeout.ms"), c.getInt("group.consumer.max.size"),
                List.of(c.get("group.consumer.assignors").split("\\s*,\\s*")));
    }

    @Override
    public Map<String, TopicMetadata> topics() {
        Map<String, TopicMetadata> topics = new TreeMap<>();
        for (Topic t : cluster.metadata().topics()) {
            if (!org.apache.kafka.common.internals.Topic.isInternal(t.name())) {
                topics.put(t.name(), new TopicMetadata(t.id(), t.name(), t.partitions().size()));
            }
        }
        return topics;
    }

    // ---- offsets

    public OffsetStore offsets() {
        return offsets;
    }

    // ---- admin

    /** DescribeGroups: the group, or null when it does not exist (Kafka answers Dead with no members). */
    public ClassicGroup describeGroup(int brokerId, String groupId) {
        return shardFor(brokerId, groupId).groups.get(groupId);
    }

    /** ListGroups on one broker: the groups of the partitions it coordinates. */
    public List<ClassicGroup> listGroups(int brokerId) {
        List<ClassicGroup> all = new ArrayList<>();
        for (GroupCoordinatorShard shard : runtime.shards()) {
            if (shard.brokerId == brokerId) {
                all.addAll(shard.groups.values());
            }
        }
        return all;
    }

    /**
     * DeleteGroups for one group.
     *
     * @throws GroupIdNotFoundException when it does not exist
     * @throws GroupNotEmptyException when it has members
     */
    public void deleteGroup(int brokerId, String groupId) {
        GroupCoordinatorShard shard = shardFor(brokerId, groupId);
        ConsumerGroup consumerGroup = shard.consumerGroups.get(groupId);
        if (consumerGroup != null) {
            if (consumerGroup.numMembers() > 0) {
                throw new GroupNotEmptyException("Group " + groupId + " still has members; stop its consumers first.");
            }
            offsets.deleteAll(shard, groupId);
            removeGroup(shard, consumerGroup, "deleted");
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
        removeGroup(shard, group, "deleted");
    }

    /** Tombstones an Empty consumer group, which is Dead from then on. */
    void removeGroup(GroupCoordinatorShard shard, ConsumerGroup group, String why) {
        group.transitionTo(dev.samsa.group.modern.consumer.ConsumerGroupState.DEAD);
        shard.consumerGroups.remove(group.groupId());
        shard.consumerGroupValues.remove(group.groupId());
        append(shard, ConsumerGroupRecords.tombstone(cluster.nowMs(), group.groupId()));
        cluster.timeline().record(new GroupRemoved(group.groupId(), why));
    }

    void removeGroup(GroupCoordinatorShard shard, ClassicGroup group, String why) {
        group.transitionTo(ClassicGroupState.DEAD, cluster.nowMs());
        shard.groups.remove(group.groupId());
        append(shard, GroupRecords.groupMetadata(cluster.nowMs(), group.groupId(), null));
        cluster.timeline().record(new GroupRemoved(group.groupId(), why));
    }

    // ---- inspection

    /** The group if its shard is loaded, or null; a pure read, for the inspection API and the classic protocol's timers. */
    @Override
    public ClassicGroup groupOrNull(String groupId) {
        GroupCoordinatorShard shard = runtime.shardOrNull(groupId);
        return shard == null ? null : shard.groups.get(groupId);
    }

    /** Committed offsets of a group if its shard is loaded; a pure read, for the inspection API. */
    public Map<TopicPartition, CommittedOffset> committed(String groupId) {
        GroupCoordinatorShard shard = runtime.shardOrNull(groupId);
        return shard == null ? Map.of() : Map.copyOf(shard.offsets(groupId));
    }

    /** Offsets that open transactions hold for a group if its shard is loaded; a pure read, for the inspection API. */
    public Set<TopicPartition> pendingTransactionalOffsets(String groupId) {
        GroupCoordinatorShard shard = runtime.shardOrNull(groupId);
        return shard == null ? Set.of() : Set.copyOf(shard.pending.partitions(groupId));
    }

    /**
     * The partitions, by group, that {@code producerId}'s open transaction holds offsets of, in every loaded shard; a
     * pure read, for the inspection API.
     */
    public Map<String, Set<TopicPartition>> pendingTransactionalOffsetsOf(long producerId) {
        Map<String, Set<TopicPartition>> held = new TreeMap<>();
        runtime.shards().forEach(shard -> held.putAll(shard.pending.heldBy(producerId)));
        return held;
    }

    // ---- shared plumbing

    /**
     * Runs {@code op} on the group's shard and writes its records in {@code producerId}'s transaction (see
     * {@link CoordinatorRuntime#scheduleTransactionalWriteOperation}); {@code respond} hears the response and NONE once
     * replicated, or null and the error (INVALID_GROUP_ID for an empty group id, as Kafka refuses it before routing).
     */
    <T> void writeTransactional(int brokerId, String groupId, long producerId, short producerEpoch,
                                CoordinatorRuntime.WriteOperation<GroupCoordinatorShard, T> op, BiConsumer<T, Errors> respond) {
        if (groupId == null || groupId.isEmpty()) {
            respond.accept(null, Errors.INVALID_GROUP_ID);
            return;
        }
        configBroker = brokerId;
        runtime.scheduleTransactionalWriteOperation(brokerId, groupId, producerId, producerEpoch,
                shard -> shard.nextSequence(producerId, producerEpoch), op, respond);
    }

    CoordinatorRuntime.Write append(GroupCoordinatorShard shard, SimpleRecord... records) {
        return runtime.append(shard, GroupRecords.batch(records));
    }

    /** See {@link CoordinatorRuntime#whenReplicated}: NONE, NOT_COORDINATOR or COORDINATOR_NOT_AVAILABLE. */
    public void whenReplicated(CoordinatorRuntime.Write write, Consumer<Errors> done) {
        runtime.whenReplicated(write, done);
    }

    /** Whether {@code shard} is still the loaded one of its partition (a timer may outlive an unload). */
    boolean isLoaded(GroupCoordinatorShard shard) {
        return runtime.isLoaded(shard);
    }

    /**
     * Where the classic group's record is written: after a rebalance leaves it Empty, once the leader's assignment
     * arrives in CompletingRebalance (Kafka writes it before calling the group Stable), and when a static member is
     * replaced in a Stable group. Answers once it is replicated. A group rebalancing or dead has nothing to write.
     */
    @Override
    public void persistGroup(ClassicGroup group, Consumer<Errors> done) {
        GroupCoordinatorShard shard = runtime.shardOrNull(group.groupId());
        if (shard == null || !shard.groups.containsKey(group.groupId())) {
            done.accept(Errors.NOT_COORDINATOR);
            return;
        }
        if (group.isInState(ClassicGroupState.PREPARING_REBALANCE) || group.isInState(ClassicGroupState.DEAD)) {
            done.accept(Errors.NONE);
            return;
        }
        whenReplicated(append(shard, GroupRecords.groupMetadata(cluster.nowMs(), group.groupId(), group.toMetadata())), done);
    }

    BrokerConfigs configs(int brokerId) {
        int id = brokerId >= 0 ? brokerId : configBroker >= 0 ? configBroker : cluster.metadata().controllerId();
        BrokerConfigs c = cluster.metadata().brokerConfigs(id);
        return c != null ? c : cluster.metadata().controllerConfigs();
    }

    @Override
    public Scheduler scheduler() {
        return cluster.scheduler();
    }

    @Override
    public String newMemberUuid() {
        return new UUID(cluster.random().nextLong(), cluster.random().nextLong()).toString();
    }

    @Override
    public ClassicGroupConfig classicConfig() {
        BrokerConfigs c = configs(-1);
        return new ClassicGroupConfig(c.getInt("group.min.session.timeout.ms"), c.getInt("group.max.session.timeout.ms"),
                c.getInt("group.max.size"), c.getInt("group.initial.rebalance.delay.ms"), NEW_MEMBER_JOIN_TIMEOUT_MS);
    }
}
