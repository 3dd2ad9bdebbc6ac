package dev.samsa.group;

import dev.samsa.cluster.BrokerConfigs;
import dev.samsa.cluster.ClusterState;
import dev.samsa.cluster.Topic;
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
import org.apache.kafka.common.errors.CoordinatorNotAvailableException;
import org.apache.kafka.common.errors.InvalidGroupIdException;
import org.apache.kafka.common.errors.NotCoordinatorException;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * What the group protocols and the offsets run on: the loaded {@link GroupCoordinatorShard} of a group id (through the
 * {@link CoordinatorRuntime}), its records appended and answered once replicated, the groups by id, and the broker's
 * group configs read on each use. It is the {@link ClassicGroupContext} and the {@link ConsumerGroupContext} of a
 * cluster (a unit test implements those over a {@code MockScheduler} instead). Owned by the cluster loop.
 */
final class GroupCoordinatorContext implements ClassicGroupContext, ConsumerGroupContext {

    static final int NEW_MEMBER_JOIN_TIMEOUT_MS = 5 * 60 * 1000;

    private final ClusterState cluster;
    private final CoordinatorRuntime<GroupCoordinatorShard> runtime;
    /** The broker of the last routed request, whose configs a timer's work reads (-1: the controller's). */
    private int configBroker = -1;

    /** Registers {@code lifecycle} with {@code cluster}'s leadership changes of {@code __consumer_offsets}. */
    GroupCoordinatorContext(ClusterState cluster, CoordinatorRuntime.Lifecycle<GroupCoordinatorShard> lifecycle) {
        this.cluster = cluster;
        this.runtime = new CoordinatorRuntime<>(cluster, GroupCoordinator.OFFSETS_TOPIC, "offsets.commit.timeout.ms", lifecycle);
    }

    ClusterState cluster() {
        return cluster;
    }

    // ---- routing

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

    // ---- writes

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
    void whenReplicated(CoordinatorRuntime.Write write, Consumer<Errors> done) {
        runtime.whenReplicated(write, done);
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

    /** Tombstones an Empty consumer group, which is Dead from then on. */
    void removeGroup(GroupCoordinatorShard shard, ConsumerGroup group, String why) {
        group.transitionTo(ConsumerGroupState.DEAD);
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

    // ---- configs, time, ids, topics

    BrokerConfigs configs(int brokerId) {
        int id = brokerId >= 0 ? brokerId : configBroker >= 0 ? configBroker : cluster.metadata().controllerId();
        BrokerConfigs c = cluster.metadata().brokerConfigs(id);
        return c != null ? c : cluster.metadata().controllerConfigs();
    }

    @Override
    public ClassicGroupConfig classicConfig() {
        BrokerConfigs c = configs(-1);
        return new ClassicGroupConfig(c.getInt("group.min.session.timeout.ms"), c.getInt("group.max.session.timeout.ms"),
                c.getInt("group.max.size"), c.getInt("group.initial.rebalance.delay.ms"), NEW_MEMBER_JOIN_TIMEOUT_MS);
    }

    @Override
    public ConsumerGroupConfig consumerConfig() {
        BrokerConfigs c = configs(-1);
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
