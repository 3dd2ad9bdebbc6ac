package dev.samsa.coordinator;

import dev.samsa.cluster.BrokerConfigs;
import dev.samsa.cluster.ClusterState;
import dev.samsa.cluster.DelayedOperation;
import dev.samsa.cluster.LogAppendResult;
import dev.samsa.cluster.Partition;
import dev.samsa.cluster.Topic;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.CoordinatorLoadInProgressException;
import org.apache.kafka.common.errors.CoordinatorNotAvailableException;
import org.apache.kafka.common.errors.NotCoordinatorException;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.utils.Utils;

/**
 * What every coordinator of an internal topic shares, as Kafka's {@code CoordinatorRuntime} at Samsa's scale: a key's
 * partition ({@link #partitionFor}), the internal topic created on the first FindCoordinator that needs it
 * ({@link #findCoordinator}), one shard per partition loaded from its leader's replica the moment the partition gets
 * a leader (at topic creation, on reopen and on every election) and unloaded when it loses it, the shard a request
 * may act on ({@link #activeShard}) or an inspection may read ({@link #shardOrNull}), and the one way records reach
 * the topic: {@link #scheduleWriteOperation}, answered only once replicated. Owned by the cluster loop; no threads,
 * no locks.
 */
public final class CoordinatorRuntime<S extends CoordinatorShard> {

    /** What the coordinator does around the runtime: builds an empty shard, and arms or drops what hangs off one. */
    public interface Lifecycle<S> {
        S newShard(int partition, int brokerId);

        /** The shard was replayed and now answers for its partition. */
        void onLoaded(S shard);

        /** The shard's broker lost the partition; the shard is already gone from the runtime. */
        void onUnloaded(S shard);
    }

    /** The internal topic FindCoordinator creates on first need, from the configs of the broker it asked. */
    public record TopicLayout(int partitions, int replicationFactor, Map<String, String> configs) {
        public TopicLayout {
            configs = Map.copyOf(configs);
        }
    }

    /**
     * How one coordinator uses the runtime.
     *
     * @param topic the internal topic whose partitions are the shards
     * @param writeTimeoutConfig the broker config bounding how long a write may wait for replication
     * @param acksAll whether records are appended as with acks=-1 (the transaction coordinator's appends): below the
     *        partition's min.insync.replicas a write is refused with Kafka's NOT_ENOUGH_REPLICAS, which a coordinator
     *        answers COORDINATOR_NOT_AVAILABLE; otherwise acks=1, as Kafka's CoordinatorPartitionWriter appends
     * @param layout the topic to create on first need, from the configs of the broker that routes the request
     */
    public record Spec(String topic, String writeTimeoutConfig, boolean acksAll, Function<BrokerConfigs, TopicLayout> layout) {
    }

    /** Where a write went and the offset the high watermark must reach before it counts (acks=-1 semantics). */
    private record Write(int partition, int brokerId, int leaderEpoch, long requiredOffset) {
    }

    private final ClusterState cluster;
    private final Spec spec;
    private final String topic;
    private final Lifecycle<S> lifecycle;
    private final Map<Integer, S> shards = new HashMap<>();

    /** Registers with {@code cluster}'s leadership changes of the spec's topic: from now on, a new leader loads its shard. */
    public CoordinatorRuntime(ClusterState cluster, Spec spec, Lifecycle<S> lifecycle) {
        this.cluster = cluster;
        this.spec = spec;
        this.topic = spec.topic();
        this.lifecycle = lifecycle;
        cluster.metadata().addLeadershipListener((partition, oldLeader, newLeader) -> {
            if (partition.topic().name().equals(topic)) {
                if (newLeader >= 0) {
                    onElection(partition);
                } else {
                    onResignation(partition.index());
                }
            }
        });
    }

    // ---- routing

    /** Kafka's rule: a key's partition is abs(key.hashCode()) modulo the partitions of the internal topic. */
    public static int partitionFor(String key, int numPartitions) {
        return Utils.abs(key.hashCode()) % numPartitions;
    }

    /**
     * The partition of the internal topic that holds {@code key}.
     *
     * @throws CoordinatorNotAvailableException before the internal topic exists
     */
    public int partitionFor(String key) {
        Topic t = cluster.metadata().topic(topic);
        if (t == null) {
            throw new CoordinatorNotAvailableException("The coordinator of " + key + " is not available yet; " + topic
                    + " does not exist. Find the coordinator first.");
        }
        return partitionFor(key, t.partitions().size());
    }

    /** The partition of the internal topic that holds {@code key}, or null before the topic exists; a pure read. */
    public TopicPartition topicPartitionOrNull(String key) {
        Topic t = cluster.metadata().topic(topic);
        return t == null ? null : new TopicPartition(topic, partitionFor(key, t.partitions().size()));
    }

    /**
     * FindCoordinator: the leader of {@code key}'s partition, creating the internal topic on first need with the layout
     * the configs of {@code brokerId} (the broker asked) give.
     *
     * @throws CoordinatorNotAvailableException when the topic cannot be created or the partition has no leader
     */
    public int findCoordinator(int brokerId, String key) {
        Topic t = cluster.metadata().topic(topic);
        if (t == null) {
            BrokerConfigs c = cluster.metadata().brokerConfigs(brokerId);
            TopicLayout layout = spec.layout().apply(c != null ? c : cluster.metadata().controllerConfigs());
            try {
                t = cluster.metadata().createTopic(topic, layout.partitions(), layout.replicationFactor(), List.of(),
                        layout.configs(), false);
            } catch (ApiException e) {
                throw new CoordinatorNotAvailableException("Cannot create " + topic + ": " + e.getMessage());
            }
        }
        Partition p = t.partition(partitionFor(key, t.partitions().size()));
        if (p == null || p.leader() < 0) {
            throw new CoordinatorNotAvailableException("The coordinator partition of " + key + " (" + topic + "-"
                    + (p == null ? "?" : p.index()) + ") has no leader");
        }
        return p.leader();
    }

    /**
     * The loaded shard that answers for {@code key} on {@code brokerId}.
     *
     * @throws CoordinatorNotAvailableException before the internal topic exists
     * @throws NotCoordinatorException when another broker (or none) leads the key's partition
     * @throws CoordinatorLoadInProgressException when {@code brokerId} leads it but its shard is not loaded
     */
    public S activeShard(int brokerId, String key) {
        return activeShard(brokerId, partitionFor(key), key);
    }

    private S activeShard(int brokerId, int partition, String key) {
        Partition p = cluster.metadata().partition(new TopicPartition(topic, partition));
        if (p == null) {
            throw new CoordinatorNotAvailableException("The coordinator of " + key + " is not available; " + topic + "-"
                    + partition + " does not exist. Find the coordinator again.");
        }
        if (p.leader() != brokerId) {
            throw new NotCoordinatorException("Broker " + brokerId + " is not the coordinator of " + key + "; broker "
                    + p.leader() + " is. Find the coordinator again.");
        }
        S shard = shards.get(partition);
        if (shard == null || shard.brokerId() != brokerId) {
            throw new CoordinatorLoadInProgressException("Broker " + brokerId + " is still loading " + topic + "-"
                    + partition + ", the coordinator partition of " + key + ".");
        }
        return shard;
    }

    /** The loaded shard of {@code key}'s partition, or null; a pure read, for inspection and timers. */
    public S shardOrNull(String key) {
        Topic t = cluster.metadata().topic(topic);
        return t == null ? null : shards.get(partitionFor(key, t.partitions().size()));
    }

    /** Every loaded shard. */
    public Collection<S> shards() {
        return Collections.unmodifiableCollection(shards.values());
    }

    /** Whether {@code shard} is still the loaded one of its partition (a timer may outlive an unload). */
    public boolean isLoaded(S shard) {
        return shards.get(shard.partition()) == shard;
    }

    // ---- loading

    /** Builds the partition's shard from its new leader's replica, replacing any older one. */
    private void onElection(Partition p) {
        onResignation(p.index());
        if (p.leader() < 0 || p.log(p.leader()) == null) {
            return;
        }
        S shard = lifecycle.newShard(p.index(), p.leader());
        CoordinatorLoader.load(topic, shard, p.log(p.leader()), cluster.timeline());
        shards.put(p.index(), shard);
        lifecycle.onLoaded(shard);
    }

    /** Drops the partition's shard; writes parked on its high watermark learn NOT_COORDINATOR now, not at their timeout. */
    private void onResignation(int partition) {
        S shard = shards.remove(partition);
        if (shard == null) {
            return;
        }
        lifecycle.onUnloaded(shard);
        cluster.purgatory().checkAndComplete(new TopicPartition(topic, partition));
    }

    // ---- writes

    /** Computes a write from the shard's current state; throws the ApiException Kafka would answer instead. */
    public interface WriteOperation<S, T> {
        CoordinatorResult<T> generate(S shard);
    }

    /**
     * Kafka's {@code scheduleWriteOperation}, the one way records reach the internal topic: runs {@code op} on the
     * shard of {@code partition} that {@code brokerId} holds, appends its records (in one batch, transactional when
     * the result names a producer), replays them into the shard as the result asks, and calls {@code respond} with the
     * response and NONE once they are replicated (then runs the result's {@code onCommitted}). A result without records
     * is answered at once.
     *
     * <p>On an error {@code respond} gets a null response and the error, mapped as Kafka's runtime and
     * {@code GroupCoordinatorService} map them: the routing's (NOT_COORDINATOR when {@code brokerId} does not lead the
     * partition, COORDINATOR_LOAD_IN_PROGRESS while its shard is not loaded, COORDINATOR_NOT_AVAILABLE when the
     * partition does not exist); {@code op}'s own; the append's ({@link #appendError}); and the replication's:
     * NOT_COORDINATOR when the partition's leadership (or leader epoch) moved first, COORDINATOR_NOT_AVAILABLE when
     * the write timeout passed (Kafka's REQUEST_TIMED_OUT).
     */
    public <T> void scheduleWriteOperation(int brokerId, int partition, WriteOperation<S, T> op, BiConsumer<T, Errors> respond) {
        S shard;
        CoordinatorResult<T> result;
        try {
            shard = activeShard(brokerId, partition, topic + "-" + partition);
            throwIfBelowMinIsr(shard);
            result = op.generate(shard);
        } catch (ApiException e) {
            respond.accept(null, appendError(e));
            return;
        }
        if (result.records().isEmpty()) {
            respond.accept(result.response(), Errors.NONE);
            if (result.onCommitted() != null) {
                result.onCommitted().run();
            }
            return;
        }
        SimpleRecord[] records = result.records().toArray(new SimpleRecord[0]);
        CoordinatorResult.Producer producer = result.producer();
        MemoryRecords batch = producer == null
                ? MemoryRecords.withRecords(Compression.NONE, records)
                : MemoryRecords.withTransactionalRecords(Compression.NONE, producer.producerId(), producer.producerEpoch(),
                        producer.baseSequence(), records);
        Write write;
        try {
            TopicPartition tp = new TopicPartition(topic, partition);
            LogAppendResult appended = cluster.replicaManager().appendAsLeader(brokerId, tp, batch, (short) 1);
            write = new Write(partition, brokerId, cluster.metadata().partition(tp).leaderEpoch(), appended.lastOffset() + 1);
        } catch (ApiException e) {
            respond.accept(null, appendError(e));
            return;
        }
        if (result.replay() == CoordinatorResult.Replay.AT_ONCE) {
            replay(shard, write, batch, producer);
        }
        whenReplicated(write, error -> {
            if (error == Errors.NONE && result.replay() == CoordinatorResult.Replay.WHEN_COMMITTED && isLoaded(shard)) {
                replay(shard, write, batch, producer);
            }
            respond.accept(error == Errors.NONE ? result.response() : null, error);
        }, result.onCommitted());
    }

    /**
     * Kafka's mapping of a failed coordinator write to what the client hears ({@code
     * CoordinatorOperationExceptionHelper.handleOperationException}, and the transaction coordinator's
     * {@code appendTransactionToLog}): the partition or its replicas being unavailable is COORDINATOR_NOT_AVAILABLE,
     * leadership lost is NOT_COORDINATOR, a batch too large is UNKNOWN_SERVER_ERROR; anything else as it is.
     */
    static Errors appendError(ApiException e) {
        Errors error = Errors.forException(e);
        return switch (error) {
            case UNKNOWN_TOPIC_OR_PARTITION, NOT_ENOUGH_REPLICAS, NOT_ENOUGH_REPLICAS_AFTER_APPEND, REQUEST_TIMED_OUT ->
                    Errors.COORDINATOR_NOT_AVAILABLE;
            case NOT_LEADER_OR_FOLLOWER, KAFKA_STORAGE_ERROR -> Errors.NOT_COORDINATOR;
            case MESSAGE_TOO_LARGE, RECORD_LIST_TOO_LARGE, INVALID_FETCH_SIZE -> Errors.UNKNOWN_SERVER_ERROR;
            default -> error;
        };
    }

    /**
     * An acks=-1 runtime refuses a write below min.insync.replicas before computing it, so that nothing the operation
     * would do (a transition on the timeline) happens for a write Kafka's append would fail.
     */
    private void throwIfBelowMinIsr(S shard) {
        if (!spec.acksAll()) {
            return;
        }
        Partition p = cluster.metadata().partition(new TopicPartition(topic, shard.partition()));
        int minIsr = p.effectiveMinIsr(cluster.metadata().effectiveConfig(p.topic(), shard.brokerId()).minInsyncReplicas());
        if (p.isrSeenBy(shard.brokerId()).size() < minIsr) {
            throw new NotEnoughReplicasException("The ISR " + p.isrSeenBy(shard.brokerId())
                    + " of " + p.topicPartition() + " is below its min.insync.replicas " + minIsr);
        }
    }

    private static void replay(CoordinatorShard shard, Write write, MemoryRecords batch, CoordinatorResult.Producer producer) {
        List<Record> records = new ArrayList<>();
        batch.records().forEach(records::add);
        long firstOffset = write.requiredOffset() - records.size();
        for (int i = 0; i < records.size(); i++) {
            if (producer == null) {
                shard.replay(firstOffset + i, records.get(i));
            } else {
                shard.replay(firstOffset + i, producer.producerId(), producer.producerEpoch(), records.get(i));
            }
        }
    }

    /**
     * Calls {@code done} once {@code write} is replicated (NONE), or cannot be (NOT_COORDINATOR: leadership or the
     * leader epoch moved), or the write timeout passed (COORDINATOR_NOT_AVAILABLE); then {@code onCommitted}, if any,
     * once it is replicated, waiting on past the timeout.
     */
    private void whenReplicated(Write write, Consumer<Errors> done, Runnable onCommitted) {
        watch(write, outcome -> {
            done.accept(outcome == null ? Errors.COORDINATOR_NOT_AVAILABLE : outcome);
            if (onCommitted != null) {
                afterCommitted(write, outcome, onCommitted);
            }
        });
    }

    private void afterCommitted(Write write, Errors outcome, Runnable onCommitted) {
        if (outcome == null) {
            watch(write, next -> afterCommitted(write, next, onCommitted));
        } else if (outcome == Errors.NONE) {
            onCommitted.run();
        }
    }

    /** Parks {@code write} until replicated; {@code outcome} hears NONE, NOT_COORDINATOR, or null when the timeout passed. */
    private void watch(Write write, Consumer<Errors> outcome) {
        BrokerConfigs configs = cluster.metadata().brokerConfigs(write.brokerId());
        long timeoutMs = (configs != null ? configs : cluster.metadata().controllerConfigs()).getInt(spec.writeTimeoutConfig());
        cluster.purgatory().tryCompleteElseWatch(new DelayedWrite(write, outcome),
                List.of(new TopicPartition(topic, write.partition())), timeoutMs, "coordinator-write");
    }

    /** NONE once replicated, NOT_COORDINATOR once it cannot be, null while still waiting. */
    private Errors writeOutcome(Write write) {
        Partition p = cluster.metadata().partition(new TopicPartition(topic, write.partition()));
        if (p == null || p.leader() != write.brokerId() || p.leaderEpoch() != write.leaderEpoch()) {
            return Errors.NOT_COORDINATOR;
        }
        return p.highWatermark() >= write.requiredOffset() ? Errors.NONE : null;
    }

    private final class DelayedWrite extends DelayedOperation {
        private final Write write;
        private final Consumer<Errors> outcome;

        DelayedWrite(Write write, Consumer<Errors> outcome) {
            this.write = write;
            this.outcome = outcome;
        }

        @Override
        public boolean tryComplete() {
            return writeOutcome(write) != null && forceComplete();
        }

        @Override
        protected void onComplete() {
            outcome.accept(writeOutcome(write));
        }
    }
}
