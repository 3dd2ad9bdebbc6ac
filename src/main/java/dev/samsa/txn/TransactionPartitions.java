package dev.samsa.txn;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.protocol.Errors;

/**
 * The partitions of an open transaction, as Kafka's {@code handleAddPartitionsToTransaction} and
 * {@code handleVerifyPartitionsInTransaction}: added by the client (AddPartitionsToTxn v1-3, AddOffsetsToTxn), added
 * implicitly by a partition leader or the group coordinator (transaction version 2), or only verified (KIP-890 part 1).
 * Owned by the cluster loop.
 */
final class TransactionPartitions {

    /** Kafka's add.partitions.to.txn.retry.backoff.ms and how many of them fit in its .max.ms, both defaults. */
    private static final long ADD_PARTITIONS_RETRY_BACKOFF_MS = 20;
    private static final int ADD_PARTITIONS_RETRIES = 100 / 20;

    private final TransactionCoordinatorContext context;
    private final TransactionStateManager state;
    /** Names the wall-time timers of retried implicit adds apart (a scheduled key replaces its namesake). */
    private long addRetries;
    /** Implicit adds by transactional id, the running one first; see {@link #addPartitionsImplicitly}. */
    private final Map<String, ArrayDeque<Runnable>> implicitAdds = new HashMap<>();

    TransactionPartitions(TransactionCoordinatorContext context, TransactionStateManager state) {
        this.context = context;
        this.state = state;
    }

    /**
     * AddPartitionsToTxn (client form) and AddOffsetsToTxn (whose one partition is the group's
     * {@code __consumer_offsets} partition): the transaction becomes Ongoing with these partitions, answered once
     * replicated.
     */
    void addPartitions(int brokerId, String transactionalId, long producerId, short producerEpoch,
                       Set<TopicPartition> partitions, short clientTransactionVersion, Consumer<Errors> respond) {
        if (transactionalId == null || transactionalId.isEmpty()) {
            respond.accept(Errors.INVALID_REQUEST);
            return;
        }
        TransactionCoordinatorShard shard;
        try {
            shard = context.activeShard(brokerId, transactionalId);
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
            state.write(shard, m.prepareAddPartitions(partitions, context.scheduler().nowMs(), clientTransactionVersion), respond);
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
    void addPartitionsImplicitly(String transactionalId, long producerId, short producerEpoch,
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
        TransactionCoordinatorShard shard = transactionalId == null ? null : context.shardOrNull(transactionalId);
        Consumer<Errors> answer = error -> {
            if (error == Errors.CONCURRENT_TRANSACTIONS && retriesLeft > 0) {
                context.scheduler().scheduleWall("txn-add-partitions-retry-" + (addRetries++), ADD_PARTITIONS_RETRY_BACKOFF_MS,
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
    void verifyPartitions(String transactionalId, long producerId, short producerEpoch, Set<TopicPartition> partitions,
                          Consumer<Map<TopicPartition, Errors>> done) {
        Errors all = null;
        TransactionMetadata m = null;
        if (transactionalId == null || transactionalId.isEmpty()) {
            all = Errors.INVALID_REQUEST;
        } else {
            TransactionCoordinatorShard shard = context.shardOrNull(transactionalId);
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
    void verifyPartitions(int brokerId, String transactionalId, long producerId, short producerEpoch,
                          Set<TopicPartition> partitions, Consumer<Map<TopicPartition, Errors>> done) {
        try {
            context.activeShard(brokerId, transactionalId);
        } catch (ApiException e) {
            Map<TopicPartition, Errors> result = new HashMap<>();
            partitions.forEach(tp -> result.put(tp, Errors.forException(e)));
            done.accept(result);
            return;
        }
        verifyPartitions(transactionalId, producerId, producerEpoch, partitions, done);
    }
}
