package dev.samsa.txn;

import dev.samsa.cluster.BrokerConfigs;
import dev.samsa.cluster.ClusterState;
import dev.samsa.cluster.Partition;
import dev.samsa.cluster.Topic;
import dev.samsa.coordinator.CoordinatorRuntime;
import dev.samsa.event.TxnStateChanged;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.CoordinatorNotAvailableException;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.Record;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.record.SimpleRecord;

/**
 * The transaction coordinator of the whole cluster, as Kafka's {@code TransactionCoordinator}: a transactional id
 * lives in its {@code __transaction_state} partition ({@code abs(transactionalId.hashCode()) % partitions}), whose
 * leader is its coordinator. The {@link CoordinatorRuntime} holds one {@link TransactionCoordinatorShard} per
 * partition; every transition is appended as one record, applied at once by the replay that also loads a shard after
 * a failover, and answered once replicated. A prepared transaction's markers are written by the
 * {@link TransactionMarkerWriter}, by this coordinator or, after a failover, by the next. Owned by the cluster loop.
 *
 * <p>Both transaction versions are served, each by the version of the request, as Kafka does (a client sends the
 * version 2 forms only when ApiVersions finalizes transaction.version 2). Version 1: the client adds partitions with
 * AddPartitionsToTxn and AddOffsetsToTxn, EndTxn keeps the epoch. Version 2 (KIP-890 part 2): the partition leader
 * and the group coordinator add them ({@link #addPartitionsImplicitly}) and every EndTxn bumps the epoch. The
 * coordinator's own aborts (timeout, fencing) follow the cluster's finalized version.
 */
public final class TransactionCoordinator {

    public static final String TRANSACTION_STATE_TOPIC = "__transaction_state";

    /** Kafka's add.partitions.to.txn.retry.backoff.ms and how many of them fit in its .max.ms, both defaults. */
    private static final long ADD_PARTITIONS_RETRY_BACKOFF_MS = 20;
    private static final int ADD_PARTITIONS_RETRIES = 100 / 20;

    /** InitProducerId's answer: the producer id and epoch to use, or an error with -1 and -1. */
    public record InitResult(long producerId, short producerEpoch, Errors error) {
        static InitResult failed(Errors error) {
            return new InitResult(RecordBatch.NO_PRODUCER_ID, RecordBatch.NO_PRODUCER_EPOCH, error);
        }
    }

    private final ClusterState cluster;
    private final CoordinatorRuntime<TransactionCoordinatorShard> runtime;
    private final TransactionMarkerWriter markers;
    /** Names the wall-time timers of retried implicit adds apart (a scheduled key replaces its namesake). */
    private long addRetries;
    /** Implicit adds by transactional id, the running one first; see {@link #addPartitionsImplicitly}. */
    private final Map<String, ArrayDeque<Runnable>> implicitAdds = new HashMap<>();

    /** Registers with {@code cluster}'s leadership changes: from now on, a partition's new leader loads its shard. */
    public TransactionCoordinator(ClusterState cluster) {
        this.cluster = cluster;
        this.markers = new TransactionMarkerWriter(cluster);
        this.runtime = new CoordinatorRuntime<>(cluster, TRANSACTION_STATE_TOPIC, "request.timeout.ms", new CoordinatorRuntime.Lifecycle<>() {
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
                shard.transactions().keySet().forEach(id -> {
                    cluster.scheduler().cancel(timeoutKey(id));
                    cluster.scheduler().cancel(expirationKey(id));
                });
            }
        });
    }

    // ---- routing

    /**
     * FindCoordinator TRANSACTION: the leader of the id's {@code __transaction_state} partition, creating the topic on
     * first need (transaction.state.log.num.partitions, .replication.factor, .min.isr capped by the replication).
     *
     * @throws CoordinatorNotAvailableException when the topic cannot be created or the partition has no leader
     */
    public int findCoordinator(int brokerId, String transactionalId) {
        Topic topic = cluster.metadata().topic(TRANSACTION_STATE_TOPIC);
        if (topic == null) {
            BrokerConfigs c = configs(brokerId);
            int replicationFactor = c.getInt("transaction.state.log.replication.factor");
            int minIsr = Math.min(c.getInt("transaction.state.log.min.isr"), replicationFactor);
            try {
                topic = cluster.metadata().createTopic(TRANSACTION_STATE_TOPIC, c.getInt("transaction.state.log.num.partitions"),
                        replicationFactor, List.of(), Map.of("cleanup.policy", "compact",
                                "min.insync.replicas", Integer.toString(minIsr)), false);
            } catch (ApiException e) {
                throw new CoordinatorNotAvailableException("Cannot create " + TRANSACTION_STATE_TOPIC + ": " + e.getMessage());
            }
        }
        Partition p = topic.partition(CoordinatorRuntime.partitionFor(transactionalId, topic.partitions().size()));
        if (p == null || p.leader() < 0) {
            throw new CoordinatorNotAvailableException("The coordinator partition of transactional id " + transactionalId
                    + " has no leader");
        }
        return p.leader();
    }

    // ---- InitProducerId

    /**
     * InitProducerId with a transactional id (Kafka's handleInitProducerId): a new id gets a producer id and epoch 0;
     * a known one gets its epoch bumped (a new producer id once the epochs run out), which fences the producer that
     * held it. An open transaction is aborted first, with the epoch bumped, and the caller is told
     * CONCURRENT_TRANSACTIONS to retry; a transaction still writing its markers answers the same. A producer that names
     * its producer id and epoch (KIP-360, recovering from an error) keeps its producer id if it is still the current
     * one, or gets PRODUCER_FENCED.
     */
    public void initProducerId(int brokerId, String transactionalId, int timeoutMs, long expectedProducerId,
                               short expectedEpoch, Consumer<InitResult> respond) {
        if (transactionalId.isEmpty()) {
            respond.accept(InitResult.failed(Errors.INVALID_REQUEST));
            return;
        }
        if (timeoutMs <= 0 || timeoutMs > configs(brokerId).getInt("transaction.max.timeout.ms")) {
            respond.accept(InitResult.failed(Errors.INVALID_TRANSACTION_TIMEOUT));
            return;
        }
        TransactionCoordinatorShard shard;
        try {
            // A client that skipped FindCoordinator creates the topic too, and learns NOT_COORDINATOR unless it guessed right.
            findCoordinator(brokerId, transactionalId);
            shard = runtime.activeShard(brokerId, transactionalId);
        } catch (ApiException e) {
            respond.accept(InitResult.failed(Errors.forException(e)));
            return;
        }
        TransactionMetadata m = shard.get(transactionalId);
        if (m == null) {
            m = TransactionMetadata.fresh(transactionalId, cluster.producerIds().nextProducerId(), timeoutMs, cluster.nowMs());
        }
        boolean expected = expectedProducerId != RecordBatch.NO_PRODUCER_ID;
        if (expected && !isValidProducerId(m, expectedProducerId, expectedEpoch)) {
            respond.accept(InitResult.failed(Errors.PRODUCER_FENCED));
            return;
        }
        TransactionMetadata next;
        switch (m.state()) {
            case PREPARE_COMMIT, PREPARE_ABORT -> {
                respond.accept(InitResult.failed(Errors.CONCURRENT_TRANSACTIONS));
                return;
            }
            case ONGOING -> {
                // The bumped epoch is never handed out: the producer retries and bumps it once more.
                fenceAndAbort(shard, m, error -> respond.accept(InitResult.failed(error == Errors.NONE ? Errors.CONCURRENT_TRANSACTIONS : error)));
                return;
            }
            case EMPTY, COMPLETE_COMMIT, COMPLETE_ABORT -> {
                if (m.isEpochExhausted() && (!expected || expectedEpoch == m.producerEpoch())) {
                    next = m.prepareProducerIdRotation(cluster.producerIds().nextProducerId(), timeoutMs, cluster.nowMs(), expected);
                } else {
                    next = prepareIncrementProducerEpoch(m, timeoutMs, expected, expectedEpoch);
                    if (next == null) {
                        respond.accept(InitResult.failed(Errors.PRODUCER_FENCED));
                        return;
                    }
                }
            }
            default -> throw new IllegalStateException("Transactional id " + transactionalId + " is " + m.state()
                    + ", a state it can never be stored in");
        }
        TransactionMetadata initialised = next;
        write(shard, next, error -> respond.accept(error == Errors.NONE
                ? new InitResult(initialised.producerId(), initialised.producerEpoch(), Errors.NONE)
                : InitResult.failed(error)));
    }

    /**
     * Kafka's rule for a producer that names its id and epoch: fenced unless the id has no epoch yet, the producer id is
     * the current one, or it is the previous one with its epochs exhausted (a retry after a rotation).
     */
    private static boolean isValidProducerId(TransactionMetadata m, long producerId, short epoch) {
        return m.producerEpoch() == RecordBatch.NO_PRODUCER_EPOCH || producerId == m.producerId()
                || (producerId == m.prevProducerId() && TransactionMetadata.isEpochExhausted(epoch));
    }

    /** Kafka's prepareIncrementProducerEpoch; null for PRODUCER_FENCED. */
    private TransactionMetadata prepareIncrementProducerEpoch(TransactionMetadata m, int timeoutMs, boolean expected, short expectedEpoch) {
        if (m.isEpochExhausted()) {
            throw new IllegalStateException("Cannot allocate any more producer epochs for producer id " + m.producerId()
                    + " of transactional id " + m.transactionalId());
        }
        short bumped = (short) (m.producerEpoch() + 1);
        if (!expected) {
            return m.prepareInitProducerId(bumped, RecordBatch.NO_PRODUCER_EPOCH, timeoutMs, cluster.nowMs());
        }
        if (m.producerEpoch() == RecordBatch.NO_PRODUCER_EPOCH || expectedEpoch == m.producerEpoch()) {
            return m.prepareInitProducerId(bumped, m.producerEpoch(), timeoutMs, cluster.nowMs());
        }
        if (expectedEpoch == m.lastProducerEpoch()) {
            // A retry of a bump that succeeded: the same answer again.
            return m.prepareInitProducerId(m.producerEpoch(), m.lastProducerEpoch(), timeoutMs, cluster.nowMs());
        }
        return null;
    }

    // ---- AddPartitionsToTxn, AddOffsetsToTxn

    /**
     * AddPartitionsToTxn (client form) and AddOffsetsToTxn (whose one partition is the group's
     * {@code __consumer_offsets} partition): the transaction becomes Ongoing with these partitions, answered once
     * replicated.
     */
    public void addPartitions(int brokerId, String transactionalId, long producerId, short producerEpoch,
                              Set<TopicPartition> partitions, short clientTransactionVersion, Consumer<Errors> respond) {
        if (transactionalId == null || transactionalId.isEmpty()) {
            respond.accept(Errors.INVALID_REQUEST);
            return;
        }
        TransactionCoordinatorShard shard;
        try {
            shard = runtime.activeShard(brokerId, transactionalId);
        } catch (ApiException e) {
            respond.accept(Errors.forException(e));
            return;
        }
        TransactionMetadata m = shard.get(transactionalId);
        if (m == null || m.producerId() != producerId) {
            respond.accept(Errors.INVALID_PRODUCER_ID_MAPPING);
        } else if (m.producerEpoch() != producerEpoch) {
            respond.accept(Errors.PRODUCER_FENCED);
        } else if (m.state().isPrepare()) {
            respond.accept(Errors.CONCURRENT_TRANSACTIONS);
        } else if (m.state() == TransactionState.ONGOING && m.partitions().containsAll(partitions)) {
            respond.accept(Errors.NONE);
        } else {
            write(shard, m.prepareAddPartitions(partitions, cluster.nowMs(), clientTransactionVersion), respond);
        }
    }

    /**
     * Transaction version 2's implicit add (KIP-890 part 2), what a partition leader's AddPartitionsToTxnManager asks
     * with AddPartitionsToTxn v4+ without verifyOnly for a Produce v12+ or a TxnOffsetCommit v5+: the partitions join
     * the producer's transaction (Ongoing, replicated) before the leader appends. {@code done} hears an error per
     * partition, NONE for those added. CONCURRENT_TRANSACTIONS (the previous transaction is still writing its
     * markers, as it is right after a commit) is retried as Kafka's ReplicaManager retries it, every
     * add.partitions.to.txn.retry.backoff.ms (20) until add.partitions.to.txn.retry.backoff.max.ms (100) has passed.
     */
    public void addPartitionsImplicitly(String transactionalId, long producerId, short producerEpoch,
                                        Set<TopicPartition> partitions, Consumer<Map<TopicPartition, Errors>> done) {
        if (transactionalId == null) {
            addPartitionsImplicitly(null, producerId, producerEpoch, partitions, ADD_PARTITIONS_RETRIES, done);
            return;
        }
        // One at a time per transactional id, in arrival order: a producer keeps up to five produce requests in flight,
        // and one held by a CONCURRENT_TRANSACTIONS retry must not be overtaken by the next, whose batch carries a
        // later sequence (OUT_OF_ORDER_SEQUENCE_NUMBER). Kafka gets this order from reading one request at a time
        // per connection.
        ArrayDeque<Runnable> queue = implicitAdds.computeIfAbsent(transactionalId, id -> new ArrayDeque<>());
        queue.add(() -> addPartitionsImplicitly(transactionalId, producerId, producerEpoch, partitions,
                ADD_PARTITIONS_RETRIES, result -> {
                    try {
                        done.accept(result);
                    } finally {
                        queue.poll();
                        if (queue.isEmpty()) {
                            implicitAdds.remove(transactionalId);
                        } else {
                            queue.peek().run();
                        }
                    }
                }));
        if (queue.size() == 1) {
            queue.peek().run();
        }
    }

    private void addPartitionsImplicitly(String transactionalId, long producerId, short producerEpoch,
                                         Set<TopicPartition> partitions, int retriesLeft,
                                         Consumer<Map<TopicPartition, Errors>> done) {
        TransactionCoordinatorShard shard = transactionalId == null ? null : runtime.shardOrNull(transactionalId);
        Consumer<Errors> answer = error -> {
            if (error == Errors.CONCURRENT_TRANSACTIONS && retriesLeft > 0) {
                cluster.scheduler().scheduleWall("txn-add-partitions-retry-" + (addRetries++), ADD_PARTITIONS_RETRY_BACKOFF_MS,
                        () -> addPartitionsImplicitly(transactionalId, producerId, producerEpoch, partitions, retriesLeft - 1, done));
                return;
            }
            Map<TopicPartition, Errors> result = new HashMap<>();
            partitions.forEach(tp -> result.put(tp, error));
            done.accept(result);
        };
        if (shard == null) {
            answer.accept(transactionalId == null || transactionalId.isEmpty() ? Errors.INVALID_REQUEST : Errors.NOT_COORDINATOR);
            return;
        }
        addPartitions(shard.brokerId(), transactionalId, producerId, producerEpoch, partitions,
                TransactionMetadata.TRANSACTION_VERSION_2, answer);
    }

    /**
     * Kafka's handleVerifyPartitionsInTransaction (KIP-890 part 1): whether each partition is in the open transaction of
     * this producer id and epoch: NONE, or TRANSACTION_ABORTABLE for one that is not; the whole set fails with
     * INVALID_PRODUCER_ID_MAPPING, PRODUCER_FENCED, CONCURRENT_TRANSACTIONS or the routing error. Answers through
     * {@code done}, as transaction version 2 will add the partitions with a replicated write first.
     */
    public void verifyPartitions(String transactionalId, long producerId, short producerEpoch, Set<TopicPartition> partitions,
                                 Consumer<Map<TopicPartition, Errors>> done) {
        Errors all = null;
        TransactionMetadata m = null;
        if (transactionalId == null || transactionalId.isEmpty()) {
            all = Errors.INVALID_REQUEST;
        } else {
            TransactionCoordinatorShard shard = runtime.shardOrNull(transactionalId);
            if (shard == null) {
                all = Errors.NOT_COORDINATOR;
            } else {
                m = shard.get(transactionalId);
                if (m == null || m.producerId() != producerId) {
                    all = Errors.INVALID_PRODUCER_ID_MAPPING;
                } else if (m.producerEpoch() != producerEpoch) {
                    all = Errors.PRODUCER_FENCED;
                } else if (m.state().isPrepare()) {
                    all = Errors.CONCURRENT_TRANSACTIONS;
                }
            }
        }
        Map<TopicPartition, Errors> result = new HashMap<>();
        for (TopicPartition tp : partitions) {
            result.put(tp, all != null ? all : m.partitions().contains(tp) ? Errors.NONE : Errors.TRANSACTION_ABORTABLE);
        }
        done.accept(result);
    }

    /**
     * AddPartitionsToTxn v4+ with verifyOnly, as a broker sends it: {@link #verifyPartitions} at the coordinator
     * {@code brokerId}, which must own the id.
     */
    public void verifyPartitions(int brokerId, String transactionalId, long producerId, short producerEpoch,
                                 Set<TopicPartition> partitions, Consumer<Map<TopicPartition, Errors>> done) {
        try {
            runtime.activeShard(brokerId, transactionalId);
        } catch (ApiException e) {
            Map<TopicPartition, Errors> result = new HashMap<>();
            partitions.forEach(tp -> result.put(tp, Errors.forException(e)));
            done.accept(result);
            return;
        }
        verifyPartitions(transactionalId, producerId, producerEpoch, partitions, done);
    }

    // ---- EndTxn

    /**
     * EndTxn's answer: with transaction version 2, the producer id and epoch the client goes on with (bumped by the
     * end); -1 and -1 otherwise and with an error.
     */
    public record EndResult(Errors error, long producerId, short producerEpoch) {
        static EndResult of(Errors error) {
            return new EndResult(error, RecordBatch.NO_PRODUCER_ID, RecordBatch.NO_PRODUCER_EPOCH);
        }
    }

    /**
     * EndTxn from the client: Ongoing moves to PrepareCommit or PrepareAbort, answered once that is replicated; then
     * the markers are written and the transaction completes. {@code clientTransactionVersion} 2 (EndTxn v5+) takes
     * Kafka's endTransaction with an epoch bump, anything lower its endTransactionWithTV1.
     */
    public void endTransaction(int brokerId, String transactionalId, long producerId, short producerEpoch, boolean commit,
                               short clientTransactionVersion, Consumer<EndResult> respond) {
        if (transactionalId == null || transactionalId.isEmpty()) {
            respond.accept(EndResult.of(Errors.INVALID_REQUEST));
            return;
        }
        TransactionCoordinatorShard shard;
        try {
            shard = runtime.activeShard(brokerId, transactionalId);
        } catch (ApiException e) {
            respond.accept(EndResult.of(Errors.forException(e)));
            return;
        }
        TransactionMetadata m = shard.get(transactionalId);
        if (clientTransactionVersion >= TransactionMetadata.TRANSACTION_VERSION_2) {
            endTransactionWithEpochBump(shard, transactionalId, m, producerId, producerEpoch, commit, respond);
        } else {
            endTransactionWithTV1(shard, transactionalId, m, producerId, producerEpoch, commit, clientTransactionVersion,
                    error -> respond.accept(EndResult.of(error)));
        }
    }

    /**
     * Kafka's endTransactionWithTV1: no epoch bump. A retry of a completed end answers NONE, of one still writing
     * markers CONCURRENT_TRANSACTIONS; the other way round, or from Empty, INVALID_TXN_STATE.
     */
    private void endTransactionWithTV1(TransactionCoordinatorShard shard, String transactionalId, TransactionMetadata m,
                                       long producerId, short producerEpoch, boolean commit, short clientTransactionVersion,
                                       Consumer<Errors> respond) {
        if (m == null || m.producerId() != producerId) {
            respond.accept(Errors.INVALID_PRODUCER_ID_MAPPING);
            return;
        }
        if (producerEpoch != m.producerEpoch()) {
            respond.accept(Errors.PRODUCER_FENCED);
            return;
        }
        TransactionState asked = commit ? TransactionState.PREPARE_COMMIT : TransactionState.PREPARE_ABORT;
        switch (m.state()) {
            case ONGOING -> prepareAndWriteMarkers(shard, m.prepareAbortOrCommit(asked, cluster.nowMs(), clientTransactionVersion), respond);
            case COMPLETE_COMMIT -> respond.accept(commit ? Errors.NONE : Errors.INVALID_TXN_STATE);
            case COMPLETE_ABORT -> respond.accept(commit ? Errors.INVALID_TXN_STATE : Errors.NONE);
            case PREPARE_COMMIT -> respond.accept(commit ? Errors.CONCURRENT_TRANSACTIONS : Errors.INVALID_TXN_STATE);
            case PREPARE_ABORT -> respond.accept(commit ? Errors.INVALID_TXN_STATE : Errors.CONCURRENT_TRANSACTIONS);
            case EMPTY -> respond.accept(Errors.INVALID_TXN_STATE);
            default -> throw new IllegalStateException("Transactional id " + transactionalId + " is " + m.state()
                    + ", a state it can never be stored in");
        }
    }

    /**
     * Kafka's endTransaction for transaction version 2 (KIP-890 part 2): every end bumps the epoch, and the markers
     * carry the bumped one; when the epoch is exhausted the completion moves to a new producer id at epoch 0. The
     * answer names the producer id and epoch of the completed transaction, which the client uses from then on. A
     * client's retry is recognised by its epoch being one below the stored one (or the last epoch of the producer id
     * just rotated away) and answered NONE when the end it repeats is done; the same epoch against a completed
     * transaction is a new end, which for an abort means an abort of no transaction (allowed from Empty too, where
     * the client aborts before anything reached the coordinator); a commit of none is INVALID_TXN_STATE.
     */
    private void endTransactionWithEpochBump(TransactionCoordinatorShard shard, String transactionalId, TransactionMetadata m,
                                             long producerId, short producerEpoch, boolean commit, Consumer<EndResult> respond) {
        if (m == null) {
            respond.accept(EndResult.of(Errors.INVALID_PRODUCER_ID_MAPPING));
            return;
        }
        boolean retryOnOverflow = m.prevProducerId() == producerId && producerEpoch == Short.MAX_VALUE - 1 && m.producerEpoch() == 0;
        boolean retryOnEpochBump = m.producerEpoch() == producerEpoch + 1;
        boolean validEpoch = switch (m.state()) {
            case ONGOING, EMPTY -> producerEpoch == m.producerEpoch();
            case PREPARE_COMMIT, PREPARE_ABORT -> retryOnEpochBump;
            case COMPLETE_COMMIT, COMPLETE_ABORT -> retryOnEpochBump || retryOnOverflow || producerEpoch == m.producerEpoch();
            default -> throw new IllegalStateException("Transactional id " + transactionalId + " is " + m.state()
                    + ", a state it can never be stored in");
        };
        if (m.producerId() != producerId && !retryOnOverflow) {
            respond.accept(EndResult.of(Errors.INVALID_PRODUCER_ID_MAPPING));
            return;
        }
        if (!validEpoch) {
            respond.accept(EndResult.of(Errors.PRODUCER_FENCED));
            return;
        }
        boolean retry = retryOnEpochBump || retryOnOverflow;
        EndResult done = new EndResult(Errors.NONE, m.producerId(), m.producerEpoch());
        EndResult invalid = EndResult.of(Errors.INVALID_TXN_STATE);
        switch (m.state()) {
            case ONGOING -> prepareWithEpochBump(shard, m, commit ? TransactionState.PREPARE_COMMIT : TransactionState.PREPARE_ABORT,
                    false, respond);
            case COMPLETE_COMMIT -> {
                if (commit) {
                    respond.accept(retry ? done : invalid);
                } else if (retry) {
                    respond.accept(invalid);
                } else {
                    prepareWithEpochBump(shard, m, TransactionState.PREPARE_ABORT, true, respond);
                }
            }
            case COMPLETE_ABORT -> {
                if (commit) {
                    respond.accept(invalid);
                } else if (retry) {
                    respond.accept(done);
                } else {
                    prepareWithEpochBump(shard, m, TransactionState.PREPARE_ABORT, true, respond);
                }
            }
            case PREPARE_COMMIT -> respond.accept(commit ? EndResult.of(Errors.CONCURRENT_TRANSACTIONS) : invalid);
            case PREPARE_ABORT -> respond.accept(commit ? invalid : EndResult.of(Errors.CONCURRENT_TRANSACTIONS));
            case EMPTY -> {
                if (commit) {
                    respond.accept(invalid);
                } else {
                    prepareWithEpochBump(shard, m, TransactionState.PREPARE_ABORT, true, respond);
                }
            }
            default -> throw new IllegalStateException("Transactional id " + transactionalId + " is " + m.state()
                    + ", a state it can never be stored in");
        }
    }

    /** PrepareCommit or PrepareAbort with the epoch bumped; the answer names what the completion will hold. */
    private void prepareWithEpochBump(TransactionCoordinatorShard shard, TransactionMetadata m, TransactionState next,
                                      boolean noPartitionAdded, Consumer<EndResult> respond) {
        long nextProducerId = m.isEpochExhausted() ? cluster.producerIds().nextProducerId() : RecordBatch.NO_PRODUCER_ID;
        TransactionMetadata prepared = m.prepareAbortOrCommitWithEpochBump(next, nextProducerId, cluster.nowMs(), noPartitionAdded);
        TransactionMetadata completed = prepared.prepareComplete(cluster.nowMs());
        prepareAndWriteMarkers(shard, prepared, error -> respond.accept(error == Errors.NONE
                ? new EndResult(Errors.NONE, completed.producerId(), completed.producerEpoch()) : EndResult.of(error)));
    }

    /**
     * Fences the producer of an Ongoing transaction and aborts it (Kafka's prepareFenceProducerEpoch followed by an
     * abort that is not from the client): the PrepareAbort written carries the bumped epoch.
     */
    private void fenceAndAbort(TransactionCoordinatorShard shard, TransactionMetadata ongoing, Consumer<Errors> done) {
        Errors refused = writeRefusal(shard);
        if (refused != Errors.NONE) {
            // Nothing is fenced: the timeline must not say so.
            done.accept(refused);
            return;
        }
        TransactionMetadata fenced = ongoing.prepareFenceProducerEpoch();
        recordTransition(ongoing, fenced);
        // As Kafka, the abort takes the cluster's transaction version, not the client's. With version 2 the bump of
        // the abort is the fence's own (Kafka drops the pending fence and lets the abort bump), so either way the
        // markers and the producer end one epoch up.
        TransactionMetadata aborting = cluster.metadata().transactionVersion() >= TransactionMetadata.TRANSACTION_VERSION_2
                ? ongoing.prepareAbortOrCommitWithEpochBump(TransactionState.PREPARE_ABORT, RecordBatch.NO_PRODUCER_ID,
                        cluster.nowMs(), false)
                : fenced.prepareAbortOrCommit(TransactionState.PREPARE_ABORT, cluster.nowMs(), ongoing.clientTransactionVersion());
        prepareAndWriteMarkers(shard, aborting, done);
    }

    /**
     * Writes {@code prepared} (PrepareCommit or PrepareAbort), answers {@code done} once it is replicated, then writes
     * the markers. The markers wait for the replication even when the answer could not (the write timed out), so that
     * no marker is ever written for a decision that a failover could lose.
     */
    private void prepareAndWriteMarkers(TransactionCoordinatorShard shard, TransactionMetadata prepared, Consumer<Errors> done) {
        CoordinatorRuntime.Write write = write(shard, prepared, done);
        if (write != null) {
            whenPrepared(shard, prepared, write);
        }
    }

    private void whenPrepared(TransactionCoordinatorShard shard, TransactionMetadata prepared, CoordinatorRuntime.Write write) {
        runtime.whenReplicated(write, error -> {
            if (error == Errors.NONE) {
                writeMarkers(shard, prepared);
            } else if (error == Errors.COORDINATOR_NOT_AVAILABLE && isCurrent(shard, prepared)) {
                whenPrepared(shard, prepared, write);
            }
        });
    }

    private void writeMarkers(TransactionCoordinatorShard shard, TransactionMetadata prepared) {
        markers.writeMarkers(prepared, shard.coordinatorEpoch(), txn -> isCurrent(shard, txn), () -> complete(shard, prepared));
    }

    /** Whether the shard is still loaded and {@code txn} is still the state of its transactional id. */
    private boolean isCurrent(TransactionCoordinatorShard shard, TransactionMetadata txn) {
        return runtime.isLoaded(shard) && txn.equals(shard.get(txn.transactionalId()));
    }

    /** Every marker is written: CompleteCommit or CompleteAbort, retried while the write times out. */
    private void complete(TransactionCoordinatorShard shard, TransactionMetadata prepared) {
        if (!isCurrent(shard, prepared)) {
            return;
        }
        write(shard, prepared.prepareComplete(cluster.nowMs()), error -> {
            if (error == Errors.COORDINATOR_NOT_AVAILABLE && runtime.isLoaded(shard)) {
                cluster.scheduler().scheduleWall("txn-complete-retry-" + prepared.transactionalId(),
                        TransactionMarkerWriter.RETRY_BACKOFF_MS, () -> complete(shard, prepared));
            }
        });
    }

    // ---- transaction timeout

    private static String timeoutKey(String transactionalId) {
        return "txn-timeout-" + transactionalId;
    }

    /**
     * An age deadline (DESIGN.md): an Ongoing transaction is aborted when the cluster clock passes its start plus its
     * timeout, as Kafka's abortTimedOutTransactions finds it (start + timeout < now), so not a millisecond before.
     */
    private void armTimeout(TransactionCoordinatorShard shard, TransactionMetadata m) {
        abortWhenTimedOut(shard, m, m.startTimeMs() + m.timeoutMs() + 1);
    }

    /** A fence that could not be written is tried again a cleanup interval later, as Kafka's next abort scan would. */
    private void abortWhenTimedOut(TransactionCoordinatorShard shard, TransactionMetadata m, long atMs) {
        cluster.scheduler().schedule(timeoutKey(m.transactionalId()), atMs, () -> {
            if (isCurrent(shard, m)) {
                fenceAndAbort(shard, m, error -> {
                    if (error != Errors.NONE && isCurrent(shard, m)) {
                        abortWhenTimedOut(shard, m, cluster.nowMs()
                                + configs(shard.brokerId()).getInt("transaction.abort.timed.out.transaction.cleanup.interval.ms"));
                    }
                });
            }
        });
    }

    // ---- transactional id expiration

    private static String expirationKey(String transactionalId) {
        return "txn-expiration-" + transactionalId;
    }

    /**
     * An age deadline: a transactional id with no transaction open or ending is removed transactional.id.expiration.ms
     * after its last transition, as Kafka's removeExpiredTransactionalIds finds it (last update <= now - expiration);
     * its next InitProducerId starts afresh with a new producer id.
     */
    private void armExpiration(TransactionCoordinatorShard shard, TransactionMetadata m) {
        long expirationMs = configs(shard.brokerId()).getInt("transactional.id.expiration.ms");
        cluster.scheduler().schedule(expirationKey(m.transactionalId()), m.lastUpdateTimeMs() + expirationMs, () -> {
            if (isCurrent(shard, m)) {
                recordTransition(m, m.prepareDead(cluster.nowMs()));
                write(shard, TransactionRecords.tombstone(cluster.nowMs(), m.transactionalId()), error -> {
                });
            }
        });
    }

    // ---- shard lifecycle and transitions

    /**
     * A loaded shard arms its open transactions' timeouts and its idle ids' expiration, and finishes what its
     * predecessor prepared.
     */
    private void onLoaded(TransactionCoordinatorShard shard) {
        for (TransactionMetadata m : shard.transactions().values()) {
            armTimers(shard, m);
            if (m.state().isPrepare()) {
                writeMarkers(shard, m);
            }
        }
    }

    private void onTransition(TransactionCoordinatorShard shard, TransactionMetadata previous, TransactionMetadata current) {
        if (current == null) {
            cluster.scheduler().cancel(timeoutKey(previous.transactionalId()));
            cluster.scheduler().cancel(expirationKey(previous.transactionalId()));
            return;
        }
        recordTransition(previous, current);
        armTimers(shard, current);
    }

    /** The one timer each state has: Ongoing its timeout, Empty and Complete* their expiration, Prepare* none. */
    private void armTimers(TransactionCoordinatorShard shard, TransactionMetadata m) {
        if (m.state() == TransactionState.ONGOING) {
            armTimeout(shard, m);
        } else {
            cluster.scheduler().cancel(timeoutKey(m.transactionalId()));
        }
        if (m.state().isExpirationAllowed()) {
            armExpiration(shard, m);
        } else {
            cluster.scheduler().cancel(expirationKey(m.transactionalId()));
        }
    }

    private void recordTransition(TransactionMetadata previous, TransactionMetadata current) {
        cluster.timeline().record(new TxnStateChanged(current.transactionalId(),
                previous == null ? TransactionState.EMPTY.toString() : previous.state().toString(), current.state().toString(),
                current.producerId(), current.producerEpoch(), current.partitions().stream().map(TopicPartition::toString).toList()));
    }

    /**
     * Appends {@code next} as its transactional id's record, applies it to the shard at once (so the next request sees
     * it) and calls {@code done} once it is replicated; returns the write, or null when the append failed (then
     * {@code done} already has the error).
     */
    private CoordinatorRuntime.Write write(TransactionCoordinatorShard shard, TransactionMetadata next, Consumer<Errors> done) {
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

    private CoordinatorRuntime.Write write(TransactionCoordinatorShard shard, SimpleRecord next, Consumer<Errors> done) {
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

    /**
     * Kafka appends transaction state with acks=-1, so below transaction.state.log.min.isr the append fails with
     * NOT_ENOUGH_REPLICAS, which the coordinator answers as COORDINATOR_NOT_AVAILABLE; NONE when a write may go.
     */
    private Errors writeRefusal(TransactionCoordinatorShard shard) {
        Partition partition = cluster.metadata().partition(new TopicPartition(TRANSACTION_STATE_TOPIC, shard.partition()));
        boolean underMinIsr = partition != null && partition.isrSeenBy(shard.brokerId()).size()
                < cluster.metadata().effectiveConfig(partition.topic(), shard.brokerId()).minInsyncReplicas();
        return underMinIsr ? Errors.COORDINATOR_NOT_AVAILABLE : Errors.NONE;
    }

    // ---- admin: DescribeTransactions, ListTransactions

    /**
     * DescribeTransactions at coordinator {@code brokerId}: the id's state, or null for an id it does not know.
     *
     * @throws ApiException COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR or COORDINATOR_LOAD_IN_PROGRESS, as routing answers
     */
    public TransactionMetadata describe(int brokerId, String transactionalId) {
        return runtime.activeShard(brokerId, transactionalId).get(transactionalId);
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
        return runtime.shards().stream().filter(s -> s.brokerId() == brokerId)
                .flatMap(s -> s.transactions().values().stream()).toList();
    }

    // ---- inspection

    /** The transactional id's state if its shard is loaded, or null; a pure read, for the inspection API. */
    public TransactionMetadata transaction(String transactionalId) {
        TransactionCoordinatorShard shard = runtime.shardOrNull(transactionalId);
        return shard == null ? null : shard.get(transactionalId);
    }

    /** The broker whose loaded shard holds the transactional id, or -1; a pure read, for the inspection API. */
    public int coordinatorOf(String transactionalId) {
        TransactionCoordinatorShard shard = runtime.shardOrNull(transactionalId);
        return shard == null ? -1 : shard.brokerId();
    }

    private BrokerConfigs configs(int brokerId) {
        BrokerConfigs c = cluster.metadata().brokerConfigs(brokerId);
        return c != null ? c : cluster.metadata().controllerConfigs();
    }
}
