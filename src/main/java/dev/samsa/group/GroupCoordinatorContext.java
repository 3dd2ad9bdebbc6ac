package dev.samsa.group;

import dev.samsa.cluster.BrokerConfigs;
import dev.samsa.cluster.ClusterState;
import dev.samsa.cluster.Topic;
import dev.samsa.coordinator.CoordinatorResult;
import dev.samsa.coordinator.CoordinatorRuntime;
import dev.samsa.event.GroupRemoved;
import dev.samsa.group.classic.ClassicGroup;
import dev.samsa.group.classic.ClassicGroupConfig;
import dev.samsa.group.classic.ClassicGroupContext;
import dev.samsa.group.classic.ClassicGroupState;
import dev.samsa.group.modern.TopicMetadata;
import dev.samsa.group.modern.consumer.ConsumerGroup;
import dev.samsa.group.modern.consumer.ConsumerGroupConfig;
import dev.samsa.group.modern.consumer.ConsumerGroupContext;
import dev.samsa.group.modern.consumer.ConsumerGroupRecords;
import dev.samsa.group.modern.consumer.ConsumerGroupState;
import dev.samsa.time.Scheduler;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.CoordinatorNotAvailableException;
import org.apache.kafka.common.errors.InvalidGroupIdException;
import org.apache.kafka.common.errors.NotCoordinatorException;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * What the group protocols and the offsets run on: the loaded {@link GroupCoordinatorShard} of a group id (through the
 * {@link CoordinatorRuntime}), every record written through the runtime's one write and answered once replicated, the
 * groups by id, and the group configs. It is the {@link ClassicGroupContext} and the {@link ConsumerGroupContext} of a
 * cluster (a unit test implements those over a {@code MockScheduler} instead). Owned by the cluster loop.
 *
 * <p>Configs: what a shard does on its own (offsets expiry) reads its broker's configs; the group protocols' configs,
 * read by requests and timers alike, are the cluster-wide ones ({@link BrokerConfigs#clusterWide}), so that a timer
 * never depends on which broker last routed a request.
 */
final class GroupCoordinatorContext implements ClassicGroupContext, ConsumerGroupContext {

    static final int NEW_MEMBER_JOIN_TIMEOUT_MS = 5 * 60 * 1000;

    private final ClusterState cluster;
    private final CoordinatorRuntime<GroupCoordinatorShard> runtime;

    /** Registers {@code lifecycle} with {@code cluster}'s leadership changes of {@code __consumer_offsets}. */
    GroupCoordinatorContext(ClusterState cluster, CoordinatorRuntime.Lifecycle<GroupCoordinatorShard> lifecycle) {
        this.cluster = cluster;
        this.runtime = new CoordinatorRuntime<>(cluster, new CoordinatorRuntime.Spec(GroupCoordinator.OFFSETS_TOPIC,
                "offsets.commit.timeout.ms", false, c -> new CoordinatorRuntime.TopicLayout(
                        c.getInt("offsets.topic.num.partitions"), c.getInt("offsets.topic.replication.factor"),
                        Map.of("cleanup.policy", "compact"))), lifecycle);
    }

    ClusterState cluster() {
        return cluster;
    }

    // ---- routing

    /** See {@link CoordinatorRuntime#findCoordinator}: creates {@code __consumer_offsets} on first need. */
    int findCoordinator(int brokerId, String groupId) {
        return runtime.findCoordinator(brokerId, groupId);
    }

    /** The group's {@code __consumer_offsets} partition, or null before the topic exists. */
    TopicPartition offsetsPartition(String groupId) {
        return runtime.topicPartitionOrNull(groupId);
    }

    /**
     * The shard of {@code groupId} if {@code brokerId} coordinates it.
     *
     * @throws CoordinatorNotAvailableException before {@code __consumer_offsets} exists
     * @throws NotCoordinatorException when another broker leads the group's partition
     * @throws InvalidGroupIdException for an empty group id, which Kafka refuses before routing the request
     */
    GroupCoordinatorShard shardFor(int brokerId, String groupId) {
        throwIfGroupIdIsInvalid(groupId);
        return runtime.activeShard(brokerId, groupId);
    }

    private static void throwIfGroupIdIsInvalid(String groupId) {
        if (groupId == null || groupId.isEmpty()) {
            throw new InvalidGroupIdException("The group id must not be empty");
        }
    }

    /** The loaded shard of the group id, on whichever broker, or null. */
    GroupCoordinatorShard shardOrNull(String groupId) {
        return runtime.shardOrNull(groupId);
    }

    Collection<GroupCoordinatorShard> shards() {
        return runtime.shards();
    }

    /** The loaded shards of the partitions {@code brokerId} coordinates. */
    List<GroupCoordinatorShard> shardsOf(int brokerId) {
        return runtime.shards().stream().filter(shard -> shard.brokerId == brokerId).toList();
    }

    /** Whether {@code shard} is still the loaded one of its partition (a timer may outlive an unload). */
    boolean isLoaded(GroupCoordinatorShard shard) {
        return runtime.isLoaded(shard);
    }

    // ---- groups by id

    /** The group if its shard is loaded, or null; a pure read, for the inspection API and the classic protocol's timers. */
    @Override
    public ClassicGroup groupOrNull(String groupId) {
        GroupCoordinatorShard shard = runtime.shardOrNull(groupId);
        return shard == null ? null : shard.groups.get(groupId);
    }

    @Override
    public ConsumerGroup consumerGroupOrNull(String groupId) {
        GroupCoordinatorShard shard = runtime.shardOrNull(groupId);
        return shard == null ? null : shard.consumerGroups.get(groupId);
    }

    // ---- writes, all through CoordinatorRuntime.scheduleWriteOperation

    /**
     * A request's write: runs {@code op} on the shard of {@code groupId} that {@code brokerId} holds (see
     * {@link CoordinatorRuntime#scheduleWriteOperation}); {@code respond} hears the response and NONE once replicated,
     * or null and the error (INVALID_GROUP_ID for an empty group id, as Kafka refuses it before routing).
     */
    <T> void write(int brokerId, String groupId, CoordinatorRuntime.WriteOperation<GroupCoordinatorShard, T> op,
                   BiConsumer<T, Errors> respond) {
        int partition;
        try {
            throwIfGroupIdIsInvalid(groupId);
            partition = runtime.partitionFor(groupId);
        } catch (ApiException e) {
            respond.accept(null, Errors.forException(e));
            return;
        }
        runtime.scheduleWriteOperation(brokerId, partition, op, respond);
    }

    /**
     * Writes {@code records}, computed from {@code shard} already, to its partition; {@code done} hears NONE once
     * replicated, or the error. The runtime replays them as {@code replay} says.
     */
    void write(GroupCoordinatorShard shard, List<SimpleRecord> records, CoordinatorResult.Replay replay, Consumer<Errors> done) {
        runtime.scheduleWriteOperation(shard.brokerId, shard.partition,
                s -> new CoordinatorResult<Void>(records, null).withReplay(replay), (nothing, error) -> done.accept(error));
    }

    /**
     * As {@link #write(int, String, CoordinatorRuntime.WriteOperation, BiConsumer)}, with the records in
     * {@code producerId}'s transaction, at the sequence that continues its last batch on the shard's partition.
     */
    <T> void writeTransactional(int brokerId, String groupId, long producerId, short producerEpoch,
                                CoordinatorRuntime.WriteOperation<GroupCoordinatorShard, T> op, BiConsumer<T, Errors> respond) {
        write(brokerId, groupId, shard -> op.generate(shard).inTransaction(new CoordinatorResult.Producer(producerId,
                producerEpoch, shard.nextSequence(producerId, producerEpoch))), respond);
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
        write(shard, List.of(GroupRecords.groupMetadata(cluster.nowMs(), group.groupId(), group.toMetadata())),
                CoordinatorResult.Replay.NEVER, done);
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
        write(shard, List.of(record), CoordinatorResult.Replay.NEVER, done);
    }

    /** Tombstones an Empty consumer group, which is Dead from then on. */
    void removeGroup(GroupCoordinatorShard shard, ConsumerGroup group, String why) {
        group.transitionTo(ConsumerGroupState.DEAD);
        shard.consumerGroups.remove(group.groupId());
        shard.consumerGroupValues.remove(group.groupId());
        write(shard, List.of(ConsumerGroupRecords.tombstone(cluster.nowMs(), group.groupId())), CoordinatorResult.Replay.NEVER,
                error -> { });
        cluster.timeline().record(new GroupRemoved(group.groupId(), why));
    }

    void removeGroup(GroupCoordinatorShard shard, ClassicGroup group, String why) {
        group.transitionTo(ClassicGroupState.DEAD, cluster.nowMs());
        shard.groups.remove(group.groupId());
        write(shard, List.of(GroupRecords.groupMetadata(cluster.nowMs(), group.groupId(), null)), CoordinatorResult.Replay.NEVER,
                error -> { });
        cluster.timeline().record(new GroupRemoved(group.groupId(), why));
    }

    // ---- configs, time, ids, topics

    /** The configs of {@code brokerId}, for what a shard of that broker does on its own (offsets expiry). */
    BrokerConfigs configs(int brokerId) {
        BrokerConfigs c = cluster.metadata().brokerConfigs(brokerId);
        return c != null ? c : clusterConfigs();
    }

    /** The group configs every broker shares; see the class comment. */
    BrokerConfigs clusterConfigs() {
        BrokerConfigs c = cluster.metadata().controllerConfigs();
        if (c == null) {
            c = cluster.metadata().brokerConfigs(cluster.metadata().brokerIds().iterator().next());
        }
        return c.clusterWide();
    }

    @Override
    public ClassicGroupConfig classicConfig() {
        BrokerConfigs c = clusterConfigs();
        return new ClassicGroupConfig(c.getInt("group.min.session.timeout.ms"), c.getInt("group.max.session.timeout.ms"),
                c.getInt("group.max.size"), c.getInt("group.initial.rebalance.delay.ms"), NEW_MEMBER_JOIN_TIMEOUT_MS);
    }

    @Override
    public ConsumerGroupConfig consumerConfig() {
        BrokerConfigs c = clusterConfigs();
        return new ConsumerGroupConfig(c.getInt("group.consumer.heartbeat.interval.ms"),
                c.getInt("group.consumer.session.timeout.ms"), c.getInt("group.consumer.max.size"),
                List.of(c.get("group.consumer.assignors").split("\\s*,\\s*")));
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
    public Map<String, TopicMetadata> topics() {
        Map<String, TopicMetadata> topics = new TreeMap<>();
        for (Topic t : cluster.metadata().topics()) {
            if (!org.apache.kafka.common.internals.Topic.isInternal(t.name())) {
                topics.put(t.name(), new TopicMetadata(t.id(), t.name(), t.partitions().size()));
            }
        }
        return topics;
    }
}
