package dev.samsa.cluster;

import dev.samsa.event.HighWatermark;
import dev.samsa.event.RecordsDeleted;
import dev.samsa.event.StaleLeaderAppend;
import dev.samsa.log.EpochEndOffset;
import dev.samsa.log.LogAppendInfo;
import dev.samsa.log.PartitionLog;
import dev.samsa.log.RecordValidationException;
import dev.samsa.log.TimestampAndOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.FencedLeaderEpochException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.apache.kafka.common.errors.PolicyViolationException;
import org.apache.kafka.common.errors.UnknownLeaderEpochException;
import org.apache.kafka.common.errors.UnknownTopicIdException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Records;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * Everything a client does to the partitions a broker leads goes through here, as through Kafka's ReplicaManager:
 * appends, reads, offset lookups, record deletion and epoch end offsets, each after checking leadership and the
 * client's leader epoch. The high watermark moves here too, and with it what waits on it. Handlers hold no log; they
 * get small results (LogReadResult, LogAppendResult, ...) to put on the wire. Owned by the cluster loop.
 */
public final class ReplicaManager {

    /** The timestamps of ListOffsets that name a position, not a time; the values and names of Kafka's ListOffsetsRequest. */
    public static final long LATEST_TIMESTAMP = -1L;
    public static final long EARLIEST_TIMESTAMP = -2L;
    public static final long MAX_TIMESTAMP = -3L;
    public static final long EARLIEST_LOCAL_TIMESTAMP = -4L;
    public static final long LATEST_TIERED_TIMESTAMP = -5L;
    public static final long EARLIEST_PENDING_UPLOAD_TIMESTAMP = -6L;
    /** What DeleteRecords asks for with offset -1: everything below the high watermark (DeleteRecordsRequest.HIGH_WATERMARK). */
    public static final long DELETE_TO_HIGH_WATERMARK = -1L;

    /** Hears of every transaction marker a leader appends (the group coordinator completes pending offsets by it). */
    public interface TxnMarkerListener {
        void onTxnMarker(int brokerId, TopicPartition tp, long producerId, short producerEpoch, boolean committed, long markerOffset);
    }

    private final ClusterState cluster;
    private final List<TxnMarkerListener> txnMarkerListeners = new ArrayList<>();

    ReplicaManager(ClusterState cluster) {
        this.cluster = cluster;
    }

    /**
     * @throws UnknownTopicOrPartitionException when the partition does not exist
     * @throws NotLeaderOrFollowerException when {@code brokerId} does not lead it
     */
    private Partition leaderPartition(int brokerId, TopicPartition tp) {
        Partition partition = cluster.metadata().partition(tp);
        if (partition == null) {
            throw new UnknownTopicOrPartitionException("This server does not host this topic-partition: " + tp);
        }
        if (!partition.isLedBy(brokerId)) {
            throw new NotLeaderOrFollowerException("Broker " + brokerId + " is not the leader of " + tp
                    + "; the leader is " + partition.leader());
        }
        return partition;
    }

    /**
     * What an acks=all produce waiting for {@code requiredOffset} answers now: null while it must wait; otherwise
     * NONE, or NOT_ENOUGH_REPLICAS_AFTER_APPEND when the ISR shrank below min.insync.replicas meanwhile, or
     * NOT_LEADER_OR_FOLLOWER when leadership moved.
     */
    public Errors acksAllOutcome(int brokerId, TopicPartition tp, long requiredOffset) {
        Partition partition = cluster.metadata().partition(tp);
        if (partition != null && partition.isStaleLeader(brokerId)) {
            // Cut off from its followers, a stale leader can never see this offset replicated: the request times out.
            return null;
        }
        if (partition == null || partition.leader() != brokerId) {
            return Errors.NOT_LEADER_OR_FOLLOWER;
        }
        if (partition.highWatermark() < requiredOffset) {
            return null;
        }
        int minIsr = partition.effectiveMinIsr(cluster.metadata().effectiveConfig(partition.topic(), brokerId).minInsyncReplicas());
        return partition.isr().size() < minIsr
                ? Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND
                : Errors.NONE;
    }

    /** Kafka's check of the epoch a client believes current, against what {@code brokerId} believes: -1 means "no opinion". */
    private static void checkLeaderEpoch(Partition partition, int brokerId, int currentLeaderEpoch) {
        if (currentLeaderEpoch < 0) {
            return;
        }
        int epoch = partition.leaderEpochSeenBy(brokerId);
        if (currentLeaderEpoch < epoch) {
            throw new FencedLeaderEpochException("Leader epoch " + currentLeaderEpoch + " of the request is older than "
                    + epoch + " for " + partition.topicPartition());
        }
        if (currentLeaderEpoch > epoch) {
            throw new UnknownLeaderEpochException("Leader epoch " + currentLeaderEpoch + " of the request is newer than "
                    + epoch + " for " + partition.topicPartition());
        }
    }

    /**
     * Validates and appends a producer's records to the leader's log, then moves the high watermark.
     *
     * @throws org.apache.kafka.common.errors.ApiException the error Kafka gives for this partition
     * @throws RecordErrorsException if the log refused records one by one (KIP-467's record errors)
     */
    public LogAppendResult appendAsLeader(int brokerId, TopicPartition tp, MemoryRecords records, short acks) {
        Partition partition = leaderPartition(brokerId, tp);
        if (acks == -1) {
            throwIfIsrTooSmall(partition, brokerId);
        }
        return appendToLeaderLog(partition, brokerId, log -> {
            try {
                return log.appendAsLeader(records, partition.leaderEpochSeenBy(brokerId), cluster.nowMs());
            } catch (RecordValidationException e) {
                throw new RecordErrorsException(e, log.logStartOffset());
            }
        });
    }

    private void throwIfIsrTooSmall(Partition partition, int brokerId) {
        int minIsr = partition.effectiveMinIsr(cluster.metadata().effectiveConfig(partition.topic(), brokerId).minInsyncReplicas());
        if (partition.isrSeenBy(brokerId).size() < minIsr) {
            throw new NotEnoughReplicasException("The size of the current ISR " + partition.isrSeenBy(brokerId)
                    + " is insufficient to satisfy the min.isr requirement of " + minIsr + " for partition "
                    + partition.topicPartition());
        }
    }

    /** Kafka's Partition.appendRecordsToLeader after its checks: the append, then the high watermark and replication. */
    private LogAppendResult appendToLeaderLog(Partition partition, int brokerId, Function<PartitionLog, LogAppendInfo> append) {
        TopicPartition tp = partition.topicPartition();
        PartitionLog log = partition.log(brokerId);
        boolean stale = partition.isStaleLeader(brokerId);
        if (!stale) {
            for (int follower : partition.followers()) {
                if (cluster.fetcher().canFetch(partition, follower)) {
                    partition.followerCaughtUpAt(follower, cluster.nowMs());
                }
            }
        }
        LogAppendInfo info = append.apply(log);
        scheduleFlush(partition, brokerId, log);
        if (stale) {
            cluster.timeline().record(new StaleLeaderAppend(tp.topic(), tp.partition(), brokerId,
                    partition.leaderEpochSeenBy(brokerId), log.logEndOffset()));
        } else {
            maybeIncrementLeaderHighWatermark(partition);
            partition.isr().forEach(follower -> scheduleLagCheck(partition, follower));
            if (partition.replicas().size() > 1) {
                cluster.fetcher().replicateSoon(partition);
            }
        }
        return new LogAppendResult(info.firstOffset(), info.lastOffset(), info.logAppendTime(), info.logStartOffset());
    }

    public void addTxnMarkerListener(TxnMarkerListener listener) {
        txnMarkerListeners.add(listener);
    }

    /**
     * Appends a transaction marker (a COMMIT or ABORT control batch of {@code producerId}) to the leader's log, as
     * Kafka's WriteTxnMarkers does, then tells the {@link TxnMarkerListener}s. The caller waits for replication with
     * {@link #acksAllOutcome} on the returned last offset + 1, as Kafka appends markers with acks=all.
     *
     * @throws ApiException leadership errors; NOT_ENOUGH_REPLICAS below min.insync.replicas (markers are acks=all);
     *     INVALID_PRODUCER_EPOCH for an epoch older than the producer's;
     *     TRANSACTION_COORDINATOR_FENCED for a coordinator epoch older than the last marker's
     */
    public LogAppendResult appendTxnMarker(int brokerId, TopicPartition tp, long producerId, short producerEpoch,
                                           int coordinatorEpoch, boolean committed) {
        Partition partition = leaderPartition(brokerId, tp);
        // Kafka appends markers with acks=all, so a too-small ISR refuses them as it refuses such a produce.
        throwIfIsrTooSmall(partition, brokerId);
        LogAppendResult result = appendToLeaderLog(partition, brokerId, log -> log.appendTxnMarkerAsLeader(producerId,
                producerEpoch, coordinatorEpoch, committed, partition.leaderEpochSeenBy(brokerId), cluster.nowMs()));
        for (TxnMarkerListener listener : List.copyOf(txnMarkerListeners)) {
            listener.onTxnMarker(brokerId, tp, producerId, producerEpoch, committed, result.lastOffset());
        }
        return result;
    }

    /**
     * Kafka's readFromLog: reads each partition from its fetch offset up to the high watermark as {@code brokerId}
     * sees it (READ_UNCOMMITTED) or up to its last stable offset (READ_COMMITTED, which also lists the aborted
     * transactions overlapping what it returns), within the partition's max bytes and what is left of
     * {@code maxBytes}. The first partition that has data returns at least one whole batch even past the limits, so
     * that a batch larger than them never stalls a consumer. A partition of an unknown topic id ({@code topic()}
     * null) answers UNKNOWN_TOPIC_ID.
     */
    public LinkedHashMap<TopicIdPartition, LogReadResult> readFromLog(int brokerId, Map<TopicIdPartition, PartitionFetchInfo> fetches,
                                                                      int maxBytes, IsolationLevel isolation) {
        LinkedHashMap<TopicIdPartition, LogReadResult> out = new LinkedHashMap<>();
        int budget = maxBytes;
        boolean minOneBatch = true;
        for (Map.Entry<TopicIdPartition, PartitionFetchInfo> e : fetches.entrySet()) {
            LogReadResult result = read(brokerId, e.getKey(), e.getValue(), Math.max(0, budget), minOneBatch, isolation);
            int size = result.records().sizeInBytes();
            budget -= size;
            minOneBatch &= size == 0;
            out.put(e.getKey(), result);
        }
        return out;
    }

    private LogReadResult read(int brokerId, TopicIdPartition tp, PartitionFetchInfo fetch, int budget, boolean minOneBatch,
                               IsolationLevel isolation) {
        Partition partition;
        PartitionLog log;
        long highWatermark;
        try {
            if (tp.topic() == null) {
                throw new UnknownTopicIdException("Unknown topic id " + tp.topicId());
            }
            partition = leaderPartition(brokerId, tp.topicPartition());
            checkLeaderEpoch(partition, brokerId, fetch.currentLeaderEpoch());
            log = partition.log(brokerId);
            highWatermark = partition.highWatermarkSeenBy(brokerId);
        } catch (ApiException e) {
            return LogReadResult.error(Errors.forException(e));
        }
        long lastStableOffset = partition.lastStableOffsetSeenBy(brokerId);
        if (fetch.fetchOffset() < log.logStartOffset() || fetch.fetchOffset() > log.logEndOffset()) {
            return new LogReadResult(MemoryRecords.EMPTY, highWatermark, lastStableOffset, log.logStartOffset(),
                    Errors.OFFSET_OUT_OF_RANGE);
        }
        boolean readCommitted = isolation == IsolationLevel.READ_COMMITTED;
        long maxOffset = readCommitted ? lastStableOffset : highWatermark;
        Records records = fetch.fetchOffset() < maxOffset
                ? log.readMapped(fetch.fetchOffset(), Math.min(fetch.maxBytes(), budget), maxOffset, minOneBatch)
                : MemoryRecords.EMPTY;
        List<LogReadResult.AbortedTransaction> aborted = readCommitted ? abortedTransactions(log, fetch.fetchOffset(), records) : null;
        return new LogReadResult(records, highWatermark, lastStableOffset, log.logStartOffset(), Errors.NONE, aborted);
    }

    /**
     * Kafka's addAbortedTransactions: those overlapping the returned batches, from the fetch offset to the offset after
     * the last batch (Kafka's upper bound is the offset of the batch that would come next: the same offset).
     */
    private static List<LogReadResult.AbortedTransaction> abortedTransactions(PartitionLog log, long fetchOffset, Records records) {
        Optional<RecordBatch> last = records.lastBatch();
        if (last.isEmpty()) {
            return List.of();
        }
        long upperBound = last.get().lastOffset() + 1;
        return log.collectAbortedTransactions(fetchOffset, upperBound).stream()
                .map(txn -> new LogReadResult.AbortedTransaction(txn.producerId(), txn.firstOffset()))
                .toList();
    }

    /**
     * Kafka's fetchOffsetForTimestamp: earliest and earliest local (the log start offset: no tiered storage), latest
     * (the last fetchable offset), latest tiered and earliest pending upload (none), max timestamp, or the first record at or after a timestamp;
     * only records below the last fetchable offset count. That is the high watermark for READ_UNCOMMITTED and the last
     * stable offset for READ_COMMITTED. Empty when nothing answers.
     *
     * @throws ApiException the error Kafka gives for this partition
     */
    public Optional<FileRecords.TimestampAndOffset> fetchOffsetForTimestamp(int brokerId, TopicPartition tp,
                                                                            int currentLeaderEpoch, long timestamp,
                                                                            IsolationLevel isolation) {
        Partition partition = leaderPartition(brokerId, tp);
        checkLeaderEpoch(partition, brokerId, currentLeaderEpoch);
        PartitionLog log = partition.log(brokerId);
        long highWatermark = partition.highWatermarkSeenBy(brokerId);
        long lastFetchable = isolation == IsolationLevel.READ_COMMITTED ? partition.lastStableOffsetSeenBy(brokerId) : highWatermark;
        Optional<TimestampAndOffset> found;
        if (timestamp == EARLIEST_TIMESTAMP || timestamp == EARLIEST_LOCAL_TIMESTAMP) {
            found = Optional.of(new TimestampAndOffset(-1, log.logStartOffset(), log.epochForOffset(log.logStartOffset()).orElse(-1)));
        } else if (timestamp == LATEST_TIMESTAMP) {
            found = Optional.of(new TimestampAndOffset(-1, lastFetchable, log.latestEpoch().orElse(-1)));
        } else if (timestamp == LATEST_TIERED_TIMESTAMP || timestamp == EARLIEST_PENDING_UPLOAD_TIMESTAMP) {
            found = Optional.empty();
        } else if (timestamp == MAX_TIMESTAMP) {
            found = Optional.of(log.maxTimestamp()).filter(t -> t.offset() >= 0 && t.offset() < lastFetchable);
        } else {
            found = log.offsetForTimestamp(timestamp).filter(t -> t.offset() < lastFetchable);
        }
        return found.map(t -> new FileRecords.TimestampAndOffset(t.timestamp(), t.offset(),
                t.leaderEpoch() < 0 ? Optional.empty() : Optional.of(t.leaderEpoch())));
    }

    /**
     * Kafka's deleteRecords with Partition.deleteRecordsOnLeader: raises the leader's log start offset to
     * {@code requested} ({@link #DELETE_TO_HIGH_WATERMARK}: the high watermark) and returns the new one. An offset at
     * or below the log start offset changes nothing.
     *
     * @throws ApiException INVALID_TOPIC_EXCEPTION for an internal topic, POLICY_VIOLATION when cleanup.policy lacks
     *     "delete", OFFSET_OUT_OF_RANGE below 0 or above the high watermark, or the leadership errors
     */
    public long deleteRecords(int brokerId, TopicPartition tp, long requested) {
        if (cluster.metadata().partition(tp) != null && org.apache.kafka.common.internals.Topic.isInternal(tp.topic())) {
            throw new InvalidTopicException("Cannot delete records of internal topic " + tp.topic());
        }
        Partition partition = leaderPartition(brokerId, tp);
        if (!cluster.metadata().effectiveConfig(partition.topic(), brokerId).delete()) {
            throw new PolicyViolationException("Records of partition " + tp + " can not be deleted due to the configured policy");
        }
        long offset = requested == DELETE_TO_HIGH_WATERMARK ? partition.highWatermark() : requested;
        if (offset < 0) {
            throw new OffsetOutOfRangeException("The offset " + offset + " for partition " + tp + " is not valid");
        }
        if (offset > partition.highWatermark()) {
            throw new OffsetOutOfRangeException("Cannot increment the log start offset to " + offset + " of partition " + tp
                    + " since it is larger than the high watermark " + partition.highWatermark());
        }
        PartitionLog log = partition.log(brokerId);
        long before = log.logStartOffset();
        long after = log.deleteRecordsBefore(offset);
        if (after != before) {
            cluster.timeline().record(new RecordsDeleted(tp.topic(), tp.partition(), after, brokerId));
        }
        return after;
    }


    /**
     * Kafka's activeProducerState: the producers the replica on {@code brokerId} knows, leader or follower, as Kafka
     * answers from its local log.
     *
     * @throws UnknownTopicOrPartitionException when the partition does not exist
     * @throws NotLeaderOrFollowerException when {@code brokerId} holds no replica of it
     */
    public List<ActiveProducer> activeProducers(int brokerId, TopicPartition tp) {
        Partition partition = cluster.metadata().partition(tp);
        if (partition == null) {
            throw new UnknownTopicOrPartitionException("This server does not host this topic-partition: " + tp);
        }
        PartitionLog log = partition.log(brokerId);
        if (log == null) {
            throw new NotLeaderOrFollowerException("Broker " + brokerId + " holds no replica of " + tp);
        }
        return log.activeProducers().stream().map(p -> new ActiveProducer(p.producerId(), p.producerEpoch(),
                p.lastSequence(), p.lastTimestamp(), p.coordinatorEpoch(), p.currentTxnStartOffset())).toList();
    }

    /**
     * Kafka's lastOffsetForLeaderEpoch, from the leader's epoch cache (KIP-320: how consumers detect truncation).
     *
     * @throws ApiException the leadership and leader epoch errors
     */
    public OffsetAndEpoch lastOffsetForLeaderEpoch(int brokerId, TopicPartition tp, int currentLeaderEpoch, int leaderEpoch) {
        Partition partition = leaderPartition(brokerId, tp);
        checkLeaderEpoch(partition, brokerId, currentLeaderEpoch);
        EpochEndOffset found = partition.log(brokerId).endOffsetForEpoch(leaderEpoch);
        return new OffsetAndEpoch(found.endOffset(), found.leaderEpoch());
    }

    /**
     * Kafka's Partition.maybeIncrementLeaderHW followed by tryCompleteDelayedRequests: called whenever the leader's log,
     * the ISR or what the leader knows of a follower changed. When the high watermark moves, the timeline hears of
     * it and what is parked on the partition (acks=all produces, fetches, coordinator writes) is tried again.
     */
    void maybeIncrementLeaderHighWatermark(Partition partition) {
        if (partition.maybeAdvanceHighWatermark()) {
            cluster.timeline().record(new HighWatermark(partition.topic().name(), partition.index(), partition.highWatermark()));
            cluster.purgatory().checkAndComplete(partition.topicPartition());
        }
    }

    static final String PRODUCER_EXPIRATION_TIMER_KEY = "producer-id-expiration-check";

    /**
     * Kafka's producer-id expiration: every producer.id.expiration.check.interval.ms of cluster time (an age deadline,
     * so a manual clock jump runs it) each replica forgets the producers without an ongoing transaction whose last
     * timestamp is producer.id.expiration.ms old. A forgotten producer's retry is no longer known as a duplicate.
     */
    void scheduleProducerExpiration() {
        int broker = cluster.metadata().brokerIds().iterator().next();
        long intervalMs = cluster.metadata().brokerConfigs(broker).getInt("producer.id.expiration.check.interval.ms");
        cluster.scheduler().scheduleAfter(PRODUCER_EXPIRATION_TIMER_KEY, intervalMs, () -> {
            removeExpiredProducers();
            scheduleProducerExpiration();
        });
    }

    private void removeExpiredProducers() {
        for (Topic topic : cluster.metadata().topics()) {
            for (Partition partition : topic.partitions()) {
                for (int broker : partition.replicas()) {
                    PartitionLog log = partition.log(broker);
                    if (log != null) {
                        long expirationMs = cluster.metadata().brokerConfigs(broker).getInt("producer.id.expiration.ms");
                        log.removeExpiredProducers(cluster.nowMs(), expirationMs);
                    }
                }
            }
        }
    }

    static String lagTimerKey(Partition partition, int follower) {
        return partition.lagTimerKey(follower);
    }

    /**
     * Arms Kafka's Partition.maybeShrinkIsr for one in-sync follower, at the first moment it can be out of sync:
     * replica.lag.time.max.ms after it was last caught up. Follower progress drives it, whatever keeps the follower
     * behind (paused, slowed, cut off, never fetching in a new epoch): an append that leaves it behind arms it, a
     * fetch that catches it up disarms it. An age deadline (DESIGN.md): a jump of the manual clock past it fires it.
     */
    void scheduleLagCheck(Partition partition, int follower) {
        if (!partition.isOnline() || follower == partition.leader() || !partition.isr().contains(follower)) {
            return;
        }
        long maxLagMs = cluster.metadata().brokerConfigs(partition.leader()).getLong("replica.lag.time.max.ms");
        cluster.scheduler().schedule(lagTimerKey(partition, follower), partition.follower(follower).lastCaughtUpMs + maxLagMs + 1,
                () -> maybeShrinkIsr(partition, follower, maxLagMs));
    }

    /** In sync is caught up and fetching, or caught up within replica.lag.time.max.ms; out of sync leaves the ISR. */
    private void maybeShrinkIsr(Partition partition, int follower, long maxLagMs) {
        if (cluster.metadata().partition(partition.topicPartition()) != partition || !partition.isOnline()
                || follower == partition.leader() || !partition.isr().contains(follower)) {
            return;
        }
        // A Kafka follower that can reach its leader never stops fetching: this one gets its fetch now.
        cluster.fetcher().fetchFromLeader(partition, follower);
        if (partition.isFollowerCaughtUp(follower) && cluster.fetcher().canFetch(partition, follower)) {
            return;
        }
        if (cluster.nowMs() - partition.follower(follower).lastCaughtUpMs > maxLagMs) {
            cluster.controller().removeFromIsr(partition, follower, "not caught up for more than replica.lag.time.max.ms=" + maxLagMs);
        } else {
            scheduleLagCheck(partition, follower);
        }
    }

    /**
     * flush.ms: unflushed appends are forced to disk once they are that old in cluster time, which is what a power
     * loss keeps. (flush.messages is counted by the log itself.)
     */
    void scheduleFlush(Partition partition, int brokerId, PartitionLog log) {
        long flushMs = log.config().flushMs();
        String key = "flush-" + partition.topicPartition() + "-on-" + brokerId;
        if (flushMs == Long.MAX_VALUE || log.unflushedMessages() == 0 || cluster.scheduler().isScheduled(key)) {
            return;
        }
        long due = Math.max(cluster.nowMs(), log.lastFlushMs() + flushMs);
        cluster.scheduler().schedule(key, due, () -> {
            if (cluster.metadata().partition(partition.topicPartition()) == partition && partition.log(brokerId) == log) {
                log.flush(cluster.nowMs());
            }
        });
    }
}
