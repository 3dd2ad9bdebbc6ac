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
import java.util.function.ToIntFunction;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.CoordinatorLoadInProgressException;
import org.apache.kafka.common.errors.CoordinatorNotAvailableException;
import org.apache.kafka.common.errors.NotCoordinatorException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.utils.Utils;

/**
 * What every coordinator of an internal topic shares, as Kafka's {@code CoordinatorRuntime} at Samsa's scale: a key's
 * partition ({@link #partitionFor}), one shard per partition loaded from its leader's replica the moment the partition
 * gets a leader (at topic creation, on reopen and on every election) and unloaded when it loses it, the shard a
 * request may act on ({@link #activeShard}) or an inspection may read ({@link #shardOrNull}), and writes answered only
 * once replicated ({@link #scheduleWriteOperation}, whose records the shard applies by the replay that also loads it;
 * or the lower {@link #append} and {@link #whenReplicated}). Owned by the cluster loop; no threads, no locks.
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

    /**
     * A coordinator write: where it went and the offset the high watermark must reach before it counts, as Kafka's
     * runtime waits for it before answering (acks=-1 semantics; the append itself is acks=1, as Kafka's
     * CoordinatorPartitionWriter does).
     */
    public record Write(int partition, int brokerId, int leaderEpoch, long requiredOffset) {
    }

    private final ClusterState cluster;
    private final String topic;
    private final String writeTimeoutConfig;
    private final Lifecycle<S> lifecycle;
    private final Map<Integer, S> shards = new HashMap<>();

    /**
     * @param topic the internal topic whose partitions are the shards
     * @param writeTimeoutConfig the broker config bounding how long a write may wait for replication
     */
    public CoordinatorRuntime(ClusterState cluster, String topic, String writeTimeoutConfig, Lifecycle<S> lifecycle) {
        this.cluster = cluster;
        this.topic = topic;
        this.writeTimeoutConfig = writeTimeoutConfig;
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
     * The loaded shard that answers for {@code key} on {@code brokerId}.
     *
     * @throws CoordinatorNotAvailableException before the internal topic exists
     * @throws NotCoordinatorException when another broker (or none) leads the key's partition
     * @throws CoordinatorLoadInProgressException when {@code brokerId} leads it but its shard is not loaded
     */
    public S activeShard(int brokerId, String key) {
        Topic t = cluster.metadata().topic(topic);
        if (t == null) {
            throw new CoordinatorNotAvailableException("The coordinator of " + key + " is not available yet; " + topic
                    + " does not exist. Find the coordinator first.");
        }
        Partition p = t.partition(partitionFor(key, t.partitions().size()));
        if (p.leader() != brokerId) {
            throw new NotCoordinatorException("Broker " + brokerId + " is not the coordinator of " + key + "; broker "
                    + p.leader() + " is. Find the coordinator again.");
        }
        S shard = shards.get(p.index());
        if (shard == null || shard.brokerId() != brokerId) {
            throw new CoordinatorLoadInProgressException("Broker " + brokerId + " is still loading " + topic + "-"
                    + p.index() + ", the coordinator partition of " + key + ".");
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
     * Kafka's {@code scheduleWriteOperation}: runs {@code op} on the shard of {@code key}, appends its records, replays
     * them into the shard at once (so the next operation sees them, as Kafka's uncommitted state), and calls
     * {@code respond} with the response and NONE once they are replicated. On an error ({@code op}'s, the routing's, or
     * the write's, see {@link #whenReplicated}) {@code respond} gets a null response and the error.
     */
    public <T> void scheduleWriteOperation(int brokerId, String key, WriteOperation<S, T> op, BiConsumer<T, Errors> respond) {
        CoordinatorResult<T> result;
        S shard;
        try {
            shard = activeShard(brokerId, key);
            result = op.generate(shard);
        } catch (ApiException e) {
            respond.accept(null, Errors.forException(e));
            return;
        }
        if (result.records().isEmpty()) {
            respond.accept(result.response(), Errors.NONE);
            return;
        }
        MemoryRecords batch = MemoryRecords.withRecords(Compression.NONE, result.records().toArray(new SimpleRecord[0]));
        List<Record> records = new ArrayList<>();
        batch.records().forEach(records::add);
        Write write = append(shard, batch);
        long firstOffset = write.requiredOffset() - records.size();
        for (int i = 0; i < records.size(); i++) {
            shard.replay(firstOffset + i, records.get(i));
        }
        whenReplicated(write, error -> respond.accept(error == Errors.NONE ? result.response() : null, error));
    }

    /**
     * Kafka's {@code scheduleTransactionalWriteOperation}: as {@link #scheduleWriteOperation}, but the records go in one
     * transactional batch of {@code producerId} and {@code producerEpoch}, so that the partition's log holds them as
     * part of that producer's transaction and its COMMIT or ABORT marker completes them (the shard replays them as
     * pending, see {@link CoordinatorShard#replay(long, long, short, Record)}). Kafka's coordinator writes such a batch
     * at sequence 0 and its log skips the sequence check for a coordinator's appends; Samsa's log checks every
     * producer batch, so {@code baseSequence} gives the sequence that continues the producer's last batch on the
     * shard's partition. A producer fenced by a newer epoch on that partition gets the log's INVALID_PRODUCER_EPOCH.
     */
    public <T> void scheduleTransactionalWriteOperation(int brokerId, String key, long producerId, short producerEpoch,
                                                        ToIntFunction<S> baseSequence, WriteOperation<S, T> op,
                                                        BiConsumer<T, Errors> respond) {
        CoordinatorResult<T> result;
        S shard;
        Write write;
        MemoryRecords batch;
        try {
            shard = activeShard(brokerId, key);
            result = op.generate(shard);
            if (result.records().isEmpty()) {
                respond.accept(result.response(), Errors.NONE);
                return;
            }
            batch = MemoryRecords.withTransactionalRecords(Compression.NONE, producerId, producerEpoch,
                    baseSequence.applyAsInt(shard), result.records().toArray(new SimpleRecord[0]));
            write = append(shard, batch);
        } catch (NotLeaderOrFollowerException e) {
            respond.accept(null, Errors.NOT_COORDINATOR);
            return;
        } catch (ApiException e) {
            respond.accept(null, Errors.forException(e));
            return;
        }
        List<Record> records = new ArrayList<>();
        batch.records().forEach(records::add);
        long firstOffset = write.requiredOffset() - records.size();
        for (int i = 0; i < records.size(); i++) {
            shard.replay(firstOffset + i, producerId, producerEpoch, records.get(i));
        }
        whenReplicated(write, error -> respond.accept(error == Errors.NONE ? result.response() : null, error));
    }

    /** Appends {@code records} to the shard's partition on its leader (acks=1); answer after {@link #whenReplicated}. */
    public Write append(S shard, MemoryRecords records) {
        TopicPartition tp = new TopicPartition(topic, shard.partition());
        LogAppendResult appended = cluster.replicaManager().appendAsLeader(shard.brokerId(), tp, records, (short) 1);
        return new Write(shard.partition(), shard.brokerId(), cluster.metadata().partition(tp).leaderEpoch(), appended.lastOffset() + 1);
    }

    /**
     * Calls {@code done} once {@code write} is replicated (the high watermark passed it): NONE; or, as Kafka maps a
     * failed coordinator write, NOT_COORDINATOR when the partition's leadership moved (or its leader epoch changed)
     * first, COORDINATOR_NOT_AVAILABLE when the write timeout passed. A null write completes at once.
     */
    public void whenReplicated(Write write, Consumer<Errors> done) {
        if (write == null) {
            done.accept(Errors.NONE);
            return;
        }
        BrokerConfigs configs = cluster.metadata().brokerConfigs(write.brokerId());
        long timeoutMs = (configs != null ? configs : cluster.metadata().controllerConfigs()).getInt(writeTimeoutConfig);
        cluster.purgatory().tryCompleteElseWatch(new DelayedWrite(write, done),
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
}
