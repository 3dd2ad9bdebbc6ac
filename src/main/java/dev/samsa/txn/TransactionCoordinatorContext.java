package dev.samsa.txn;

import dev.samsa.coordinator.CoordinatorRuntime;
import dev.samsa.event.Timeline;
import dev.samsa.time.Scheduler;
import java.util.Collection;
import java.util.function.BiConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.CoordinatorNotAvailableException;
import org.apache.kafka.common.protocol.Errors;

/**
 * What the transaction coordinator runs on, as the group coordinator's {@code ClassicGroupContext}: the loaded shards of
 * {@code __transaction_state} and the one write to them, time and timers, producer ids, configs, and the partition
 * leaders a transaction's markers go to. The cluster's is {@link TransactionCoordinator}'s own, over the
 * {@link CoordinatorRuntime}; a unit test implements it over a {@code MockScheduler}, with no cluster loop and no
 * files. Every method is called on the cluster loop.
 */
interface TransactionCoordinatorContext {

    /** The configs the coordinator reads from the broker it runs on, Kafka's names and defaults. */
    record TransactionConfig(int maxTimeoutMs, int abortTimedOutTransactionCleanupIntervalMs, int transactionalIdExpirationMs) {
    }

    /** What {@link #leaderOf} answers for a partition that does not exist (its topic was deleted). */
    int NO_PARTITION = -2;

    /** Cluster time ({@code nowMs}) and the coordinator's timers: transaction timeouts on it, retries on wall time. */
    Scheduler scheduler();

    Timeline timeline();

    /** The next producer id of the cluster's block, from its seeded sequence. */
    long nextProducerId();

    /** The cluster's finalized transaction.version, which the coordinator's own aborts follow. */
    short transactionVersion();

    TransactionConfig config(int brokerId);

    // ---- routing

    /**
     * FindCoordinator TRANSACTION: the leader of the id's partition, creating {@code __transaction_state} on first need.
     *
     * @throws CoordinatorNotAvailableException when the topic cannot be created or the partition has no leader
     */
    int findCoordinator(int brokerId, String transactionalId);

    /** @throws ApiException COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR or COORDINATOR_LOAD_IN_PROGRESS, as routing answers */
    TransactionCoordinatorShard activeShard(int brokerId, String transactionalId);

    /** The loaded shard of the transactional id, on whichever broker, or null. */
    TransactionCoordinatorShard shardOrNull(String transactionalId);

    Collection<TransactionCoordinatorShard> shards();

    /** Whether {@code shard} is still the loaded one of its partition (a timer may outlive an unload). */
    boolean isLoaded(TransactionCoordinatorShard shard);

    // ---- the write

    /**
     * The one write ({@link CoordinatorRuntime#scheduleWriteOperation}) to {@code shard}'s partition: {@code op}
     * computes the records, which are replayed into the shard and answered once replicated; {@code respond} hears the
     * response and NONE, or null and the coordinator error (COORDINATOR_NOT_AVAILABLE below
     * transaction.state.log.min.isr, as Kafka appends transaction state with acks=-1).
     */
    <T> void write(TransactionCoordinatorShard shard, CoordinatorRuntime.WriteOperation<TransactionCoordinatorShard, T> op,
                   BiConsumer<T, Errors> respond);

    /**
     * A move of {@code transactionalId} to {@code state} by {@code coordinator} was replicated: runs a test's fault
     * armed for it (which may crash that coordinator before it answers); whether one ran.
     */
    boolean stateReplicated(String transactionalId, String state, int coordinator);

    // ---- markers

    /** The broker that leads {@code tp} now, -1 when none does, {@link #NO_PARTITION} when it does not exist. */
    int leaderOf(TopicPartition tp);

    /** Whether a test's fault holds the marker for {@code tp} on {@code leader}; if so {@code send} waits for the release. */
    boolean holdMarker(TopicPartition tp, int leader, Runnable send);

    /**
     * Appends a COMMIT or ABORT marker of {@code producerId} to {@code tp} on {@code leader}, as WriteTxnMarkers does,
     * and calls {@code done} with the marker's offset once it is replicated (acks=all), or with the error: the
     * append's (INVALID_PRODUCER_EPOCH, TRANSACTION_COORDINATOR_FENCED, leadership), NOT_LEADER_OR_FOLLOWER when
     * another broker leads before it is replicated, NOT_ENOUGH_REPLICAS_AFTER_APPEND, or REQUEST_TIMED_OUT.
     */
    void writeMarker(int leader, TopicPartition tp, long producerId, short producerEpoch, int coordinatorEpoch,
                     boolean committed, BiConsumer<Long, Errors> done);
}
