package dev.samsa.txn;

import dev.samsa.cluster.ClusterState;
import dev.samsa.coordinator.CoordinatorRuntime;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.CoordinatorNotAvailableException;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * The transaction coordinator of the whole cluster, as Kafka's {@code TransactionCoordinator}: a transactional id
 * lives in its {@code __transaction_state} partition ({@code abs(transactionalId.hashCode()) % partitions}), whose
 * leader is its coordinator. The {@link CoordinatorRuntime} holds one {@link TransactionCoordinatorShard} per
 * partition; every transition is appended as one record, applied at once by the replay that also loads a shard after
 * a failover, and answered once replicated ({@link TransactionStateManager}). A prepared transaction's markers are
 * written by the {@link TransactionMarkerWriter}, by this coordinator or, after a failover, by the next. Owned by the
 * cluster loop.
 *
 * <p>This class is the entry point the handlers and the inspection API use; the work is done by one class per
 * concern: {@link ProducerIdFencing} (InitProducerId), {@link TransactionPartitions} (adding and verifying partitions),
 * {@link TransactionEnd} (EndTxn, markers, the coordinator's own aborts) and {@link TransactionExpiry} (transaction
 * timeout, transactional id expiration).
 *
 * <p>Both transaction versions are served, each by the version of the request, as Kafka does (a client sends the
 * version 2 forms only when ApiVersions finalizes transaction.version 2). Version 1: the client adds partitions with
 * AddPartitionsToTxn and AddOffsetsToTxn, EndTxn keeps the epoch. Version 2 (KIP-890 part 2): the partition leader
 * and the group coordinator add them ({@link #addPartitionsImplicitly}) and every EndTxn bumps the epoch. The
 * coordinator's own aborts (timeout, fencing) follow the cluster's finalized version.
 */
public final class TransactionCoordinator {

    public static final String TRANSACTION_STATE_TOPIC = "__transaction_state";

    /** InitProducerId's answer: the producer id and epoch to use, or an error with -1 and -1. */
    public record InitResult(long producerId, short producerEpoch, Errors error) {
        static InitResult failed(Errors error) {
            return new InitResult(RecordBatch.NO_PRODUCER_ID, RecordBatch.NO_PRODUCER_EPOCH, error);
        }
    }

    /**
     * EndTxn's answer: with transaction version 2, the producer id and epoch the client goes on with (bumped by the
     * end); -1 and -1 otherwise and with an error.
     */
    public record EndResult(Errors error, long producerId, short producerEpoch) {
        static EndResult of(Errors error) {
            return new EndResult(error, RecordBatch.NO_PRODUCER_ID, RecordBatch.NO_PRODUCER_EPOCH);
        }
    }

    private final TransactionMarkerWriter markers;
    private final TransactionStateManager state;
    private final TransactionEnd end;
    private final TransactionExpiry expiry;
    private final ProducerIdFencing fencing;
    private final TransactionPartitions partitions;

    /** Registers with {@code cluster}'s leadership changes: from now on, a partition's new leader loads its shard. */
    public TransactionCoordinator(ClusterState cluster) {
        this.markers = new TransactionMarkerWriter(cluster);
        this.state = new TransactionStateManager(cluster, new CoordinatorRuntime.Lifecycle<>() {
            @Override
            public TransactionCoordinatorShard newShard(int partition, int brokerId) {
                int epoch = cluster.metadata().partition(new TopicPartition(TRANSACTION_STATE_TOPIC, partition)).leaderEpoch();
                return new TransactionCoordinatorShard(partition, brokerId, epoch, TransactionCoordinator.this::onTransition);
            }

            @Override
            public void onLoaded(TransactionCoordinatorShard shard) {
                TransactionCoordinator.this.onLoaded(shard);
            }

            @Override
            public void onUnloaded(TransactionCoordinatorShard shard) {
                shard.transactions().keySet().forEach(expiry::cancelTimers);
            }
        });
        this.end = new TransactionEnd(cluster, state, markers);
        this.expiry = new TransactionExpiry(cluster, state, end);
        this.fencing = new ProducerIdFencing(cluster, state, end);
        this.partitions = new TransactionPartitions(cluster, state);
    }

    /**
     * A loaded shard arms its open transactions' timeouts and its idle ids' expiration, and finishes what its
     * predecessor prepared.
     */
    private void onLoaded(TransactionCoordinatorShard shard) {
        for (TransactionMetadata m : shard.transactions().values()) {
            expiry.armTimers(shard, m);
            if (m.state().isPrepare()) {
                end.writeMarkers(shard, m);
            }
        }
    }

    private void onTransition(TransactionCoordinatorShard shard, TransactionMetadata previous, TransactionMetadata current) {
        if (current == null) {
            expiry.cancelTimers(previous.transactionalId());
            return;
        }
        state.recordTransition(previous, current);
        expiry.armTimers(shard, current);
    }

    // ---- requests

    /**
     * FindCoordinator TRANSACTION, creating {@code __transaction_state} on first need; see
     * {@link TransactionStateManager#findCoordinator}.
     *
     * @throws CoordinatorNotAvailableException when the topic cannot be created or the partition has no leader
     */
    public int findCoordinator(int brokerId, String transactionalId) {
        return state.findCoordinator(brokerId, transactionalId);
    }

    /** InitProducerId with a transactional id; see {@link ProducerIdFencing#initProducerId}. */
    public void initProducerId(int brokerId, String transactionalId, int timeoutMs, long expectedProducerId,
                               short expectedEpoch, Consumer<InitResult> respond) {
        fencing.initProducerId(brokerId, transactionalId, timeoutMs, expectedProducerId, expectedEpoch, respond);
    }

    /** AddPartitionsToTxn v1-3 and AddOffsetsToTxn; see {@link TransactionPartitions#addPartitions}. */
    public void addPartitions(int brokerId, String transactionalId, long producerId, short producerEpoch,
                              Set<TopicPartition> partitions, short clientTransactionVersion, Consumer<Errors> respond) {
        this.partitions.addPartitions(brokerId, transactionalId, producerId, producerEpoch, partitions,
                clientTransactionVersion, respond);
    }

    /** Transaction version 2's implicit add; see {@link TransactionPartitions#addPartitionsImplicitly}. */
    public void addPartitionsImplicitly(String transactionalId, long producerId, short producerEpoch,
                                        Set<TopicPartition> partitions, Consumer<Map<TopicPartition, Errors>> done) {
        this.partitions.addPartitionsImplicitly(transactionalId, producerId, producerEpoch, partitions, done);
    }

    /** Whether each partition is in the producer's open transaction; see {@link TransactionPartitions#verifyPartitions}. */
    public void verifyPartitions(String transactionalId, long producerId, short producerEpoch, Set<TopicPartition> partitions,
                                 Consumer<Map<TopicPartition, Errors>> done) {
        this.partitions.verifyPartitions(transactionalId, producerId, producerEpoch, partitions, done);
    }

    /** AddPartitionsToTxn v4+ with verifyOnly at the coordinator {@code brokerId}, which must own the id. */
    public void verifyPartitions(int brokerId, String transactionalId, long producerId, short producerEpoch,
                                 Set<TopicPartition> partitions, Consumer<Map<TopicPartition, Errors>> done) {
        this.partitions.verifyPartitions(brokerId, transactionalId, producerId, producerEpoch, partitions, done);
    }

    /** EndTxn from the client; see {@link TransactionEnd#endTransaction}. */
    public void endTransaction(int brokerId, String transactionalId, long producerId, short producerEpoch, boolean commit,
                               short clientTransactionVersion, Consumer<EndResult> respond) {
        end.endTransaction(brokerId, transactionalId, producerId, producerEpoch, commit, clientTransactionVersion, respond);
    }

    // ---- admin: DescribeTransactions, ListTransactions

    /**
     * DescribeTransactions at coordinator {@code brokerId}: the id's state, or null for an id it does not know.
     *
     * @throws ApiException COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR or COORDINATOR_LOAD_IN_PROGRESS, as routing answers
     */
    public TransactionMetadata describe(int brokerId, String transactionalId) {
        return state.activeShard(brokerId, transactionalId).get(transactionalId);
    }

    /**
     * The partitions DescribeTransactions lists for {@code m}: those of the open transaction, or, once it is prepared,
     * only those still waiting for their marker (Kafka removes each partition as its marker is written).
     */
    public Set<TopicPartition> describedPartitions(TransactionMetadata m) {
        return m.state().isPrepare() ? markers.owedMarkers(m) : m.partitions();
    }

    /** ListTransactions at {@code brokerId}: every transactional id of the shards it coordinates (Admin asks each broker). */
    public List<TransactionMetadata> coordinatedBy(int brokerId) {
        return state.shards().stream().filter(s -> s.brokerId() == brokerId)
                .flatMap(s -> s.transactions().values().stream()).toList();
    }

    // ---- inspection

    /** The transactional id's state if its shard is loaded, or null; a pure read, for the inspection API. */
    public TransactionMetadata transaction(String transactionalId) {
        TransactionCoordinatorShard shard = state.shardOrNull(transactionalId);
        return shard == null ? null : shard.get(transactionalId);
    }

    /** The broker whose loaded shard holds the transactional id, or -1; a pure read, for the inspection API. */
    public int coordinatorOf(String transactionalId) {
        TransactionCoordinatorShard shard = state.shardOrNull(transactionalId);
        return shard == null ? -1 : shard.brokerId();
    }
}
