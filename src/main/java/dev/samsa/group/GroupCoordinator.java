package dev.samsa.group;

import dev.samsa.cluster.BrokerConfigs;
import dev.samsa.cluster.ClusterState;
import dev.samsa.cluster.DelayedOperation;
import dev.samsa.cluster.LogAppendResult;
import dev.samsa.cluster.Partition;
import dev.samsa.cluster.ReplicaManager;
import dev.samsa.cluster.Topic;
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
import dev.samsa.log.PartitionLog;
import dev.samsa.time.Scheduler;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
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
import org.apache.kafka.common.utils.Utils;

/**
 * The group coordinator of the whole cluster: it routes a group to its {@code __consumer_offsets} partition
 * ({@code abs(groupId.hashCode()) % offsets.topic.num.partitions}, Kafka's rule), whose leader is the group's
 * coordinator; holds one {@link CoordinatorShard} per partition, built from the leader's replica when that broker takes
 * over ({@link #onElection}) or lazily on the first request; and hands requests to the classic protocol
 * ({@link ClassicGroups}) and the offsets ({@link OffsetStore}). Every state change it makes is appended to the
 * partition's log through {@link ReplicaManager#appendAsLeader}. Owned by the cluster loop; takes no locks.
 *
 * <p>The KIP-848 consumer protocol (ConsumerGroupHeartbeat) would sit beside {@link ClassicGroups} as a second group
 * kind in the shard; it is not implemented.
 */
public final class GroupCoordinator implements ClassicGroupContext {

    public static final String OFFSETS_TOPIC = "__consumer_offsets";
    static final int NEW_MEMBER_JOIN_TIMEOUT_MS = 5 * 60 * 1000;

    private final ClusterState cluster;
    private final Map<Integer, CoordinatorShard> shards = new HashMap<>();
    private final ClassicGroups classic;
    private final OffsetStore offsets;
    private int configBroker = -1;

    public GroupCoordinator(ClusterState cluster) {
        this.cluster = cluster;
        this.classic = new ClassicGroups(this);
        this.offsets = new OffsetStore(this);
    }

    ClusterState cluster() {
        return cluster;
    }

    // ---- routing

    /** Kafka's rule: the group's offsets partition is abs(groupId.hashCode()) modulo the partitions of the topic. */
    static int partitionFor(String groupId, Topic offsetsTopic) {
        return Utils.abs(groupId.hashCode()) % offsetsTopic.partitions().size();
    }

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
        Partition p = topic.partition(partitionFor(groupId, topic));
        if (p == null || p.leader() < 0) {
            throw new CoordinatorNotAvailableException("The coordinator partition of group " + groupId + " has no leader");
        }
        return p.leader();
    }

    /**
     * The shard of {@code groupId} if {@code brokerId} coordinates it, loading it on first use.
     *
     * @throws CoordinatorNotAvailableException before {@code __consumer_offsets} exists
     * @throws NotCoordinatorException when another broker leads the group's partition
     * @throws InvalidGroupIdException for an empty group id, which Kafka refuses before routing the request
     */
    CoordinatorShard shardFor(int brokerId, String groupId) {
        if (groupId == null || groupId.isEmpty()) {
            throw new InvalidGroupIdException("The group id must not be empty");
        }
        Topic topic = cluster.metadata().topic(OFFSETS_TOPIC);
        if (topic == null) {
            throw new CoordinatorNotAvailableException("The coordinator of group " + groupId + " is not available yet; "
                    + OFFSETS_TOPIC + " does not exist. Find the coordinator first.");
        }
        int partition = partitionFor(groupId, topic);
        Partition p = topic.partition(partition);
        if (p.leader() != brokerId) {
            throw new NotCoordinatorException("Broker " + brokerId + " is not the coordinator of group " + groupId
                    + "; broker " + p.leader() + " is. Find the coordinator again.");
        }
        CoordinatorShard shard = shards.get(partition);
        if (shard == null || shard.brokerId != brokerId) {
            onElection(partition);
            shard = shards.get(partition);
        }
        configBroker = brokerId;
        return shard;
    }

    /** Builds partition {@code partition}'s groups and offsets from its leader's log; called when a broker takes over. */
    public void onElection(int partition) {
        onResignation(partition);
        Partition p = cluster.metadata().partition(new TopicPartition(OFFSETS_TOPIC, partition));
        if (p == null || p.leader() < 0 || p.log(p.leader()) == null) {
            return;
        }
        PartitionLog log = p.log(p.leader());
        CoordinatorShard shard = CoordinatorShard.load(partition, p.leader(), log, cluster.timeline(), cluster.nowMs(),
                cluster.scheduler().wallMs());
        shards.put(partition, shard);
        // Loaded members must heartbeat to this coordinator within their session, as Kafka's onLoaded arms them.
        shard.groups.values().forEach(g -> classic.rebalancer().onLoaded(g));
        offsets.scheduleCleanup(shard);
    }

    /** Drops partition {@code partition}'s groups: parked requests learn NOT_COORDINATOR, timers stop. */
    public void onResignation(int partition) {
        CoordinatorShard shard = shards.remove(partition);
        if (shard == null) {
            return;
        }
        for (ClassicGroup g : shard.groups.values()) {
            classic.rebalancer().unload(g);
        }
        cluster.scheduler().cancel(OffsetStore.cleanupKey(partition));
        // Writes parked on this partition's high watermark learn NOT_COORDINATOR now rather than at their timeout.
        cluster.purgatory().checkAndComplete(new TopicPartition(OFFSETS_TOPIC, partition));
        cluster.timeline().record(new CoordinatorUnloaded(partition, shard.brokerId));
    }

    // ---- classic protocol

    /** JoinGroup; the answer goes to {@code respond}, now or when the join phase completes. */
    public void joinGroup(int brokerId, JoinRequest req, Consumer<JoinResult> respond) {
        CoordinatorShard shard = shardFor(brokerId, req.groupId());
        ClassicGroupConfig config = classicConfig();
        if (req.sessionTimeoutMs() < config.minSessionTimeoutMs() || req.sessionTimeoutMs() > config.maxSessionTimeoutMs()) {
            throw new InvalidSessionTimeoutException("session.timeout.ms " + req.sessionTimeoutMs() + " is outside the broker's "
                    + "group.min.session.timeout.ms " + config.minSessionTimeoutMs() + " .. group.max.session.timeout.ms "
                    + config.maxSessionTimeoutMs());
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

    /** SyncGroup from a client at {@code clientAddress}; the answer goes to {@code respond}. */
    public void syncGroup(int brokerId, String groupId, String memberId, String instanceId, int generation, String protocolType,
                          String protocolName, Map<String, byte[]> assignments, String clientAddress, Consumer<SyncResult> respond) {
        ClassicGroup group = shardFor(brokerId, groupId).groups.get(groupId);
        classic.sync().sync(group, memberId, instanceId, generation, protocolType, protocolName, assignments, clientAddress, respond);
    }

    /**
     * Heartbeat from a client at {@code clientAddress}.
     *
     * @throws ApiException the error Kafka answers the heartbeat with
     */
    public void heartbeat(int brokerId, String groupId, String memberId, String instanceId, int generation, String clientAddress) {
        classic.liveness().heartbeat(shardFor(brokerId, groupId).groups.get(groupId), memberId, instanceId, generation,
                clientAddress);
    }

    /**
     * A client connection to {@code brokerId} closed. Members of the groups that broker coordinates whose last request
     * came over it are silent from now on, for the liveness rule of a clock jump (DESIGN.md). A member talks to its
     * coordinator only, so the client address within that broker names the connection.
     */
    public void connectionClosed(int brokerId, String clientAddress) {
        for (CoordinatorShard shard : shards.values()) {
            if (shard.brokerId == brokerId) {
                shard.groups.values().forEach(g -> classic.liveness().connectionClosed(g, clientAddress));
            }
        }
    }

    /**
     * @throws ApiException for the whole request: UNKNOWN_MEMBER_ID when the group does not exist, COORDINATOR_NOT_AVAILABLE when it is dead
     */
    public List<Errors> leaveGroup(int brokerId, String groupId, List<ClassicGroupLiveness.Leaving> leaving) {
        ClassicGroup group = shardFor(brokerId, groupId).groups.get(groupId);
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
        ClassicGroup group = groupOrNull(groupId);
        if (group == null) {
            throw new IllegalArgumentException("No group " + groupId);
        }
        classic.rebalancer().removeMemberAndUpdateGroup(group, memberId, "expired on purpose by the test");
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
        Topic topic = cluster.metadata().topic(OFFSETS_TOPIC);
        if (topic == null) {
            return all;
        }
        for (Partition p : topic.partitions()) {
            if (p.leader() == brokerId) {
                CoordinatorShard shard = shards.get(p.index());
                if (shard == null || shard.brokerId != brokerId) {
                    onElection(p.index());
                    shard = shards.get(p.index());
                }
                if (shard != null) {
                    all.addAll(shard.groups.values());
                }
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
        CoordinatorShard shard = shardFor(brokerId, groupId);
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

    void removeGroup(CoordinatorShard shard, ClassicGroup group, String why) {
        group.transitionTo(ClassicGroupState.DEAD, cluster.nowMs());
        shard.groups.remove(group.groupId());
        append(shard, GroupRecords.groupMetadata(cluster.nowMs(), group.groupId(), null));
        cluster.timeline().record(new GroupRemoved(group.groupId(), why));
    }

    // ---- inspection

    /** The group wherever it lives, or null; for the inspection API and the classic protocol's timers. */
    @Override
    public ClassicGroup groupOrNull(String groupId) {
        for (CoordinatorShard shard : shards.values()) {
            ClassicGroup g = shard.groups.get(groupId);
            if (g != null) {
                return g;
            }
        }
        Topic topic = cluster.metadata().topic(OFFSETS_TOPIC);
        if (topic != null) {
            Partition p = topic.partition(partitionFor(groupId, topic));
            if (p != null && p.leader() >= 0 && !shards.containsKey(p.index())) {
                onElection(p.index());
                CoordinatorShard shard = shards.get(p.index());
                return shard == null ? null : shard.groups.get(groupId);
            }
        }
        return null;
    }

    /** Committed offsets of a group wherever it lives; for the inspection API. */
    public Map<TopicPartition, CommittedOffset> committed(String groupId) {
        for (CoordinatorShard shard : shards.values()) {
            if (shard.offsets.containsKey(groupId)) {
                return Map.copyOf(shard.offsets(groupId));
            }
        }
        return Map.of();
    }

    // ---- shared plumbing

    /**
     * A coordinator write: where it went and the offset the high watermark must reach before it counts, as Kafka's
     * runtime waits for it before answering (acks=-1 semantics; the append itself is acks=1, as Kafka's
     * CoordinatorPartitionWriter does).
     */
    public record Write(int partition, int brokerId, int leaderEpoch, long requiredOffset) {
    }

    Write append(CoordinatorShard shard, SimpleRecord... records) {
        TopicPartition tp = new TopicPartition(OFFSETS_TOPIC, shard.partition);
        LogAppendResult appended = cluster.replicaManager().appendAsLeader(shard.brokerId, tp, GroupRecords.batch(records), (short) 1);
        return new Write(shard.partition, shard.brokerId, cluster.metadata().partition(tp).leaderEpoch(), appended.lastOffset() + 1);
    }

    /**
     * Calls {@code done} once {@code write} is replicated (the high watermark passed it): NONE; or, as Kafka maps a
     * failed coordinator write, NOT_COORDINATOR when the partition's leadership moved (or its leader epoch changed)
     * first, COORDINATOR_NOT_AVAILABLE when offsets.commit.timeout.ms passed. A null write completes at once.
     */
    public void whenReplicated(Write write, Consumer<Errors> done) {
        if (write == null) {
            done.accept(Errors.NONE);
            return;
        }
        long timeoutMs = configs(write.brokerId()).getInt("offsets.commit.timeout.ms");
        cluster.purgatory().tryCompleteElseWatch(new DelayedWrite(write, done),
                List.of(new TopicPartition(OFFSETS_TOPIC, write.partition())), timeoutMs, "coordinator-write");
    }

    /** NONE once replicated, NOT_COORDINATOR once it cannot be, null while still waiting. */
    private Errors writeOutcome(Write write) {
        Partition p = cluster.metadata().partition(new TopicPartition(OFFSETS_TOPIC, write.partition()));
        if (p == null || p.leader() != write.brokerId() || p.leaderEpoch() != write.leaderEpoch()) {
            return Errors.NOT_COORDINATOR;
        }
        return p.highWatermark() >= write.requiredOffset() ? Errors.NONE : null;
    }

    private final class DelayedWrite extends DelayedOperation {
        private final Write write;
        private final Consumer<Errors> done;

        DelayedWrite(Write write, Consumer<Errors> done) {
            this.write = write;
            this.done = done;
        }

        @Override
        public boolean tryComplete() {
            return writeOutcome(write) != null && forceComplete();
        }

        @Override
        protected void onComplete() {
            Errors outcome = writeOutcome(write);
            // Timed out: Kafka's REQUEST_TIMED_OUT of a coordinator write reaches the client as COORDINATOR_NOT_AVAILABLE.
            done.accept(outcome == null ? Errors.COORDINATOR_NOT_AVAILABLE : outcome);
        }
    }

    /** Whether {@code shard} is still the loaded one of its partition (a timer may outlive an unload). */
    boolean isLoaded(CoordinatorShard shard) {
        return shards.get(shard.partition) == shard;
    }

    CoordinatorShard shardOf(String groupId) {
        for (CoordinatorShard shard : shards.values()) {
            if (shard.groups.containsKey(groupId) || shard.offsets.containsKey(groupId)) {
                return shard;
            }
        }
        return null;
    }

    /**
     * Where the classic group's record is written: after a rebalance leaves it Empty, once the leader's assignment
     * arrives in CompletingRebalance (Kafka writes it before calling the group Stable), and when a static member is
     * replaced in a Stable group. Answers once it is replicated. A group rebalancing or dead has nothing to write.
     */
    @Override
    public void persistGroup(ClassicGroup group, Consumer<Errors> done) {
        CoordinatorShard shard = shardOf(group.groupId());
        if (shard == null) {
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
