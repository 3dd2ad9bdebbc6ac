package dev.samsa.txn;

import dev.samsa.cluster.BrokerConfigs;
import dev.samsa.cluster.ClusterState;
import dev.samsa.cluster.Partition;
import dev.samsa.cluster.Topic;
import dev.samsa.coordinator.CoordinatorRuntime;
import dev.samsa.event.TxnStateChanged;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.CoordinatorNotAvailableException;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * Where transaction state lives, as Kafka's {@code TransactionStateManager}: routes a transactional id to the loaded
 * shard of its {@code __transaction_state} partition, appends each transition as the id's record (applied to the shard
 * at once, answered once replicated) and records it on the timeline. Owned by the cluster loop.
 */
final class TransactionStateManager {

    private final ClusterState cluster;
    private final CoordinatorRuntime<TransactionCoordinatorShard> runtime;

    /** Registers {@code lifecycle} with {@code cluster}'s leadership changes of {@code __transaction_state}. */
    TransactionStateManager(ClusterState cluster, CoordinatorRuntime.Lifecycle<TransactionCoordinatorShard> lifecycle) {
        this.cluster = cluster;
        this.runtime = new CoordinatorRuntime<>(cluster, TransactionCoordinator.TRANSACTION_STATE_TOPIC, "request.timeout.ms",
                lifecycle);
    }

    // ---- routing

    /**
     * FindCoordinator TRANSACTION: the leader of the id's {@code __transaction_state} partition, creating the topic on
     * first need (transaction.state.log.num.partitions, .replication.factor, .min.isr capped by the replication).
     *
     * @throws CoordinatorNotAvailableException when the topic cannot be created or the partition has no leader
     */
    int findCoordinator(int brokerId, String transactionalId) {
        Topic topic = cluster.metadata().topic(TransactionCoordinator.TRANSACTION_STATE_TOPIC);
        if (topic == null) {
            BrokerConfigs c = configs(brokerId);
            int replicationFactor = c.getInt("transaction.state.log.replication.factor");
            int minIsr = Math.min(c.getInt("transaction.state.log.min.isr"), replicationFactor);
            try {
                topic = cluster.metadata().createTopic(TransactionCoordinator.TRANSACTION_STATE_TOPIC,
                        c.getInt("transaction.state.log.num.partitions"), replicationFactor, List.of(),
                        Map.of("cleanup.policy", "compact", "min.insync.replicas", Integer.toString(minIsr)), false);
            } catch (ApiException e) {
                throw new CoordinatorNotAvailableException("Cannot create " + TransactionCoordinator.TRANSACTION_STATE_TOPIC
                        + ": " + e.getMessage());
            }
        }
        Partition p = topic.partition(CoordinatorRuntime.partitionFor(transactionalId, topic.partitions().size()));
        if (p == null || p.leader() < 0) {
            throw new CoordinatorNotAvailableException("The coordinator partition of transactional id " + transactionalId
                    + " has no leader");
        }
        return p.leader();
    }

    /** @throws ApiException COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR or COORDINATOR_LOAD_IN_PROGRESS, as routing answers */
    TransactionCoordinatorShard activeShard(int brokerId, String transactionalId) {
        return runtime.activeShard(brokerId, transactionalId);
    }

    /** The loaded shard of the transactional id, on whichever broker, or null. */
    TransactionCoordinatorShard shardOrNull(String transactionalId) {
        return runtime.shardOrNull(transactionalId);
    }

    Collection<TransactionCoordinatorShard> shards() {
        return runtime.shards();
    }

    boolean isLoaded(TransactionCoordinatorShard shard) {
        return runtime.isLoaded(shard);
    }

    /** Whether the shard is still loaded and {@code txn} is still the state of its transactional id. */
    boolean isCurrent(TransactionCoordinatorShard shard, TransactionMetadata txn) {
        return runtime.isLoaded(shard) && txn.equals(shard.get(txn.transactionalId()));
    }

    // ---- writes

    /**
     * Appends {@code next} as its transactional id's record, applies it to the shard at once (so the next request sees
     * it) and calls {@code done} once it is replicated; returns the write, or null when the append failed (then
     * {@code done} already has the error).
     */
    CoordinatorRuntime.Write write(TransactionCoordinatorShard shard, TransactionMetadata next, Consumer<Errors> done) {
        return write(shard, TransactionRecords.transaction(cluster.nowMs(), next), error -> {
            // A test's fault may crash or isolate this coordinator the moment the state is replicated; then it has lost
            // the transaction before it could answer, as Kafka's append callback finds the coordinator epoch moved.
            if (error == Errors.NONE && cluster.faults().txn().stateReplicated(next.transactionalId(), next.state().toString(),
                    shard.brokerId()) && !runtime.isLoaded(shard)) {
                done.accept(Errors.NOT_COORDINATOR);
                return;
            }
            done.accept(error);
        });
    }

    CoordinatorRuntime.Write write(TransactionCoordinatorShard shard, SimpleRecord next, Consumer<Errors> done) {
        Errors refused = writeRefusal(shard);
        if (refused != Errors.NONE) {
            done.accept(refused);
            return null;
        }
        MemoryRecords batch = MemoryRecords.withRecords(Compression.NONE, next);
        CoordinatorRuntime.Write write;
        try {
            write = runtime.append(shard, batch);
        } catch (ApiException e) {
            done.accept(Errors.NOT_COORDINATOR);
            return null;
        }
        Record record = batch.records().iterator().next();
        shard.replay(write.requiredOffset() - 1, record);
        runtime.whenReplicated(write, done);
        return write;
    }

    /** See {@link CoordinatorRuntime#whenReplicated}. */
    void whenReplicated(CoordinatorRuntime.Write write, Consumer<Errors> done) {
        runtime.whenReplicated(write, done);
    }

    /**
     * Kafka appends transaction state with acks=-1, so below transaction.state.log.min.isr the append fails with
     * NOT_ENOUGH_REPLICAS, which the coordinator answers as COORDINATOR_NOT_AVAILABLE; NONE when a write may go.
     */
    Errors writeRefusal(TransactionCoordinatorShard shard) {
        Partition partition = cluster.metadata().partition(new TopicPartition(TransactionCoordinator.TRANSACTION_STATE_TOPIC,
                shard.partition()));
        boolean underMinIsr = partition != null && partition.isrSeenBy(shard.brokerId()).size()
                < cluster.metadata().effectiveConfig(partition.topic(), shard.brokerId()).minInsyncReplicas();
        return underMinIsr ? Errors.COORDINATOR_NOT_AVAILABLE : Errors.NONE;
    }

    void recordTransition(TransactionMetadata previous, TransactionMetadata current) {
        cluster.timeline().record(new TxnStateChanged(current.transactionalId(),
                previous == null ? TransactionState.EMPTY.toString() : previous.state().toString(), current.state().toString(),
                current.producerId(), current.producerEpoch(), current.partitions().stream().map(TopicPartition::toString).toList()));
    }

    BrokerConfigs configs(int brokerId) {
        BrokerConfigs c = cluster.metadata().brokerConfigs(brokerId);
        return c != null ? c : cluster.metadata().controllerConfigs();
    }
}
