package dev.samsa.txn;

import dev.samsa.cluster.BrokerConfigs;
import dev.samsa.cluster.ClusterState;
import dev.samsa.cluster.DelayedOperation;
import dev.samsa.cluster.LogAppendResult;
import dev.samsa.cluster.Partition;
import dev.samsa.coordinator.CoordinatorRuntime;
import dev.samsa.event.Timeline;
import dev.samsa.time.Scheduler;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
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
 * <p>The classes of this package run on a {@link TransactionCoordinatorContext}; this class holds the cluster's (its
 * nested {@code ClusterContext}, the package's one view of {@code ClusterState}), and a unit test gives it one over a
 * {@code MockScheduler}.
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

    private final TransactionCoordinatorContext context;
    private final TransactionMarkerWriter markers;
    private final TransactionStateManager state;
    private final TransactionEnd end;
    private final TransactionExpiry expiry;
    private final ProducerIdFencing fencing;
    private final TransactionPartitions partitions;

    /** Registers with {@code cluster}'s leadership changes: from now on, a partition's new leader loads its shard. */
    public TransactionCoordinator(ClusterState cluster) {
        this.context = new ClusterContext(cluster, this);
        this.markers = new TransactionMarkerWriter(context);
        this.state = new TransactionStateManager(context);
        this.end = new TransactionEnd(context, state, markers);
        this.expiry = new TransactionExpiry(context, state, end);
        this.fencing = new ProducerIdFencing(context, state, end);
        this.partitions = new TransactionPartitions(context, state);
    }

    /** On {@code context}, which loads its shards through {@link #newShard}, {@link #onLoaded} and {@link #onUnloaded}. */
    TransactionCoordinator(TransactionCoordinatorContext context) {
        this.context = context;
        this.markers = new TransactionMarkerWriter(context);
        this.state = new TransactionStateManager(context);
        this.end = new TransactionEnd(context, state, markers);
        this.expiry = new TransactionExpiry(context, state, end);
        this.fencing = new ProducerIdFencing(context, state, end);
        this.partitions = new TransactionPartitions(context, state);
    }

    /** @param coordinatorEpoch the leader epoch of the partition when {@code brokerId} took it */
    TransactionCoordinatorShard newShard(int partition, int brokerId, int coordinatorEpoch) {
        return new TransactionCoordinatorShard(partition, brokerId, coordinatorEpoch, this::onTransition);
    }

    /** The shard's broker lost its partition: the timers of its transactional ids stop. */
    void onUnloaded(TransactionCoordinatorShard shard) {
        shard.transactions().keySet().forEach(expiry::cancelTimers);
    }

    /**
     * A loaded shard arms its open transactions' timeouts and its idle ids' expiration, and finishes what its
     * predecessor prepared.
     */
    void onLoaded(TransactionCoordinatorShard shard) {
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
     * FindCoordinator TRANSACTION: the leader of the id's {@code __transaction_state} partition, creating the topic on
     * first need (transaction.state.log.num.partitions, .replication.factor, .min.isr capped by the replication).
     *
     * @throws CoordinatorNotAvailableException when the topic cannot be created or the partition has no leader
     */
    public int findCoordinator(int brokerId, String transactionalId) {
        return context.findCoordinator(brokerId, transactionalId);
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
        return context.activeShard(brokerId, transactionalId).get(transactionalId);
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
        return context.shards().stream().filter(s -> s.brokerId() == brokerId)
                .flatMap(s -> s.transactions().values().stream()).toList();
    }

    // ---- inspection

    /** The transactional id's state if its shard is loaded, or null; a pure read, for the inspection API. */
    public TransactionMetadata transaction(String transactionalId) {
        TransactionCoordinatorShard shard = context.shardOrNull(transactionalId);
        return shard == null ? null : shard.get(transactionalId);
    }

    /** The broker whose loaded shard holds the transactional id, or -1; a pure read, for the inspection API. */
    public int coordinatorOf(String transactionalId) {
        TransactionCoordinatorShard shard = context.shardOrNull(transactionalId);
        return shard == null ? -1 : shard.brokerId();
    }

    /**
     * The context of a cluster: the {@link CoordinatorRuntime} of {@code __transaction_state} (acks=-1 appends, each
     * write waiting at most request.timeout.ms), the cluster's clock, producer ids, faults and partition leaders. The
     * one place in this package that knows {@link ClusterState}.
     */
    private static final class ClusterContext implements TransactionCoordinatorContext {

        private final ClusterState cluster;
        private final CoordinatorRuntime<TransactionCoordinatorShard> runtime;

        ClusterContext(ClusterState cluster, TransactionCoordinator coordinator) {
            this.cluster = cluster;
            this.runtime = new CoordinatorRuntime<>(cluster, new CoordinatorRuntime.Spec(TRANSACTION_STATE_TOPIC,
                    "request.timeout.ms", true, c -> {
                        int replicationFactor = c.getInt("transaction.state.log.replication.factor");
                        int minIsr = Math.min(c.getInt("transaction.state.log.min.isr"), replicationFactor);
                        return new CoordinatorRuntime.TopicLayout(c.getInt("transaction.state.log.num.partitions"),
                                replicationFactor, Map.of("cleanup.policy", "compact", "min.insync.replicas",
                                        Integer.toString(minIsr)));
                    }), new CoordinatorRuntime.Lifecycle<>() {
                        @Override
                        public TransactionCoordinatorShard newShard(int partition, int brokerId) {
                            int epoch = cluster.metadata().partition(new TopicPartition(TRANSACTION_STATE_TOPIC, partition))
                                    .leaderEpoch();
                            return coordinator.newShard(partition, brokerId, epoch);
                        }

                        @Override
                        public void onLoaded(TransactionCoordinatorShard shard) {
                            coordinator.onLoaded(shard);
                        }

                        @Override
                        public void onUnloaded(TransactionCoordinatorShard shard) {
                            coordinator.onUnloaded(shard);
                        }
                    });
        }

        @Override
        public Scheduler scheduler() {
            return cluster.scheduler();
        }

        @Override
        public Timeline timeline() {
            return cluster.timeline();
        }

        @Override
        public long nextProducerId() {
            return cluster.producerIds().nextProducerId();
        }

        @Override
        public short transactionVersion() {
            return cluster.metadata().transactionVersion();
        }

        @Override
        public TransactionConfig config(int brokerId) {
            BrokerConfigs c = cluster.metadata().brokerConfigs(brokerId);
            if (c == null) {
                c = cluster.metadata().controllerConfigs();
            }
            return new TransactionConfig(c.getInt("transaction.max.timeout.ms"),
                    c.getInt("transaction.abort.timed.out.transaction.cleanup.interval.ms"),
                    c.getInt("transactional.id.expiration.ms"));
        }

        @Override
        public int findCoordinator(int brokerId, String transactionalId) {
            return runtime.findCoordinator(brokerId, transactionalId);
        }

        @Override
        public TransactionCoordinatorShard activeShard(int brokerId, String transactionalId) {
            return runtime.activeShard(brokerId, transactionalId);
        }

        @Override
        public TransactionCoordinatorShard shardOrNull(String transactionalId) {
            return runtime.shardOrNull(transactionalId);
        }

        @Override
        public Collection<TransactionCoordinatorShard> shards() {
            return runtime.shards();
        }

        @Override
        public boolean isLoaded(TransactionCoordinatorShard shard) {
            return runtime.isLoaded(shard);
        }

        @Override
        public <T> void write(TransactionCoordinatorShard shard,
                              CoordinatorRuntime.WriteOperation<TransactionCoordinatorShard, T> op, BiConsumer<T, Errors> respond) {
            runtime.scheduleWriteOperation(shard.brokerId(), shard.partition(), op, respond);
        }

        @Override
        public boolean stateReplicated(String transactionalId, String state, int coordinator) {
            return cluster.faults().txn().stateReplicated(transactionalId, state, coordinator);
        }

        @Override
        public int leaderOf(TopicPartition tp) {
            Partition p = cluster.metadata().partition(tp);
            return p == null ? NO_PARTITION : p.leader();
        }

        @Override
        public boolean holdMarker(TopicPartition tp, int leader, Runnable send) {
            return cluster.faults().txn().holdMarker(tp, leader, send);
        }

        @Override
        public void writeMarker(int leader, TopicPartition tp, long producerId, short producerEpoch, int coordinatorEpoch,
                                boolean committed, BiConsumer<Long, Errors> done) {
            LogAppendResult appended;
            try {
                appended = cluster.replicaManager().appendTxnMarker(leader, tp, producerId, producerEpoch, coordinatorEpoch,
                        committed);
            } catch (ApiException e) {
                done.accept(null, Errors.forException(e));
                return;
            }
            long timeoutMs = cluster.metadata().brokerConfigs(leader).getInt("request.timeout.ms");
            cluster.purgatory().tryCompleteElseWatch(new DelayedMarker(leader, tp, appended.lastOffset() + 1,
                    outcome -> done.accept(appended.lastOffset(), outcome == null ? Errors.REQUEST_TIMED_OUT : outcome)),
                    List.of(tp), timeoutMs, "txn-marker");
        }

        /** Done when the marker is replicated on its leader, or when it cannot be (then null: timed out). */
        private final class DelayedMarker extends DelayedOperation {
            private final int leader;
            private final TopicPartition tp;
            private final long requiredOffset;
            private final Consumer<Errors> done;

            DelayedMarker(int leader, TopicPartition tp, long requiredOffset, Consumer<Errors> done) {
                this.leader = leader;
                this.tp = tp;
                this.requiredOffset = requiredOffset;
                this.done = done;
            }

            @Override
            public boolean tryComplete() {
                return (leaderMoved() || cluster.replicaManager().acksAllOutcome(leader, tp, requiredOffset) != null)
                        && forceComplete();
            }

            @Override
            protected void onComplete() {
                done.accept(leaderMoved() ? Errors.NOT_LEADER_OR_FOLLOWER
                        : cluster.replicaManager().acksAllOutcome(leader, tp, requiredOffset));
            }

            /**
             * The coordinator reads leadership from the metadata: once another broker leads, the marker goes there now,
             * not after request.timeout.ms, even when the old leader, cut off from the others, still believes it leads.
             */
            private boolean leaderMoved() {
                Partition p = cluster.metadata().partition(tp);
                return p == null || p.leader() != leader;
            }
        }
    }
}
