package dev.samsa.cluster;

import dev.samsa.event.Truncated;
import dev.samsa.log.EpochEndOffset;
import dev.samsa.log.MappedRecords;
import dev.samsa.log.PartitionLog;
import java.util.OptionalInt;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.Records;

/**
 * Followers pulling from their leader, in-process. A fetch runs as its own task on the cluster loop after the leader
 * appends, so an acks=all produce is parked first and completed when the followers' fetches move the high watermark,
 * as in Kafka.
 *
 * <p>The two sides keep apart as they would across a network. The follower reads and writes its own log; the leader
 * learns of it only what a fetch carries (the fetch offset and the follower's log start offset), through
 * {@link Partition#updateFollowerFetchState}, and answers OffsetForLeaderEpoch from its own log. Before its first fetch
 * in a new leader epoch a follower reconciles its log as Kafka's {@code AbstractFetcherThread} does (KIP-101/279).
 *
 * <p>A fetch takes no time unless latency is injected on the leader's or the follower's broker: then it is in flight
 * for that much wall time, and a follower that falls behind meanwhile is judged by the leader's lag check like any
 * other ({@link ReplicaManager#scheduleLagCheck}).
 */
public final class ReplicaFetcher {

    private static final int MAX_FETCH_BYTES = 1024 * 1024;

    private final ClusterState cluster;

    ReplicaFetcher(ClusterState cluster) {
        this.cluster = cluster;
    }

    /** Lets every follower of {@code partition} catch up in a task of its own. */
    public void replicateSoon(Partition partition) {
        String key = partition.replicationTaskKey();
        if (!cluster.scheduler().isScheduled(key)) {
            cluster.scheduler().schedule(key, cluster.nowMs(), () -> replicate(partition));
        }
    }

    void replicate(Partition partition) {
        if (cluster.metadata().partition(partition.topicPartition()) != partition || !partition.isOnline()) {
            return;
        }
        for (int follower : partition.followers()) {
            fetchFromLeader(partition, follower);
        }
    }

    /**
     * The follower's fetch reaches the leader at once, or, with latency injected on either broker, that much wall time
     * later (both brokers' latency: the fetch and its answer cross both). One fetch is in flight per follower; it
     * catches up with whatever the leader has when it arrives. Meanwhile the follower falls behind, in cluster time,
     * as a slow follower does.
     */
    void fetchFromLeader(Partition partition, int follower) {
        long latencyMs = cluster.faults().replicaFetchDelayMs(partition.leader(), follower);
        if (latencyMs == 0) {
            fetch(partition, follower);
            return;
        }
        String key = "replica-fetch-" + partition.topicPartition() + "-" + follower;
        if (!cluster.scheduler().isScheduled(key)) {
            cluster.scheduler().scheduleWall(key, latencyMs, () -> {
                if (cluster.metadata().partition(partition.topicPartition()) == partition && partition.isOnline()
                        && partition.leader() != follower) {
                    fetch(partition, follower);
                }
            });
        }
    }

    /** Whether {@code follower} can fetch from its leader now: both up, not paused, not cut apart. */
    boolean canFetch(Partition partition, int follower) {
        return partition.leaderLog() != null && partition.log(follower) != null
                && cluster.faults().canReplicate(partition.topicPartition(), partition.leader(), follower);
    }

    /**
     * The pause fault: the follower on {@code follower} stops fetching. It fetched continuously until now, so if it
     * had everything it was caught up until now; from here on it falls behind, and leaves the ISR, as any follower
     * that does not fetch.
     */
    public void pause(Partition partition, int follower) {
        if (partition.isOnline()) {
            partition.followerCaughtUpAt(follower, cluster.nowMs());
        }
        cluster.faults().pause(partition.topicPartition(), follower);
        cluster.replicaManager().scheduleLagCheck(partition, follower);
    }

    /** One follower catches up as far as it can, one fetch after another. */
    void fetch(Partition partition, int follower) {
        PartitionLog leaderLog = partition.leaderLog();
        PartitionLog followerLog = partition.log(follower);
        Partition.FollowerState state = partition.follower(follower);
        if (!canFetch(partition, follower)) {
            return;
        }
        if (state.reconciledEpoch != partition.leaderEpoch()) {
            truncateToLeader(partition, follower, leaderLog, followerLog);
            state.reconciledEpoch = partition.leaderEpoch();
        }
        while (true) {
            long fetchOffset = followerLog.logEndOffset();
            if (fetchOffset > leaderLog.logEndOffset()) {
                // OFFSET_OUT_OF_RANGE above the leader's end (an unclean election): Kafka's follower truncates to it.
                truncate(partition, follower, followerLog, leaderLog.logEndOffset(), "fetch offset " + fetchOffset
                        + " above the leader's log end offset");
                continue;
            }
            if (fetchOffset < leaderLog.logStartOffset()) {
                // OFFSET_OUT_OF_RANGE below: the leader deleted what this follower still needs, it starts over there.
                long start = followerLog.logStartOffset();
                followerLog.resetTo(leaderLog.logStartOffset());
                if (fetchOffset > start) {
                    cluster.timeline().record(new Truncated(partition.topic().name(), partition.index(), follower,
                            fetchOffset, start, fetchOffset - start, partition.leaderEpoch(),
                            "all below the leader's log start offset " + leaderLog.logStartOffset() + ", where the follower starts over"));
                }
                continue;
            }
            // The fetch reaches the leader: from here on the leader knows the follower holds its records below it.
            partition.updateFollowerFetchState(follower, fetchOffset, followerLog.logStartOffset(), cluster.nowMs());
            if (fetchOffset == leaderLog.logEndOffset()) {
                break;
            }
            Records records = leaderLog.readMapped(fetchOffset, MAX_FETCH_BYTES, leaderLog.logEndOffset(), true);
            if (records.sizeInBytes() == 0) {
                break;
            }
            try (MappedRecords mapped = (MappedRecords) records) {
                RecordBatch first = mapped.batches().get(0);
                if (fetchOffset == followerLog.logStartOffset() && first.baseOffset() < fetchOffset && first.lastOffset() >= fetchOffset) {
                    // The leader's log start offset (raised by DeleteRecords) falls inside a batch and this follower's
                    // log is empty from there: it starts at the batch's base offset, and takes the leader's log start
                    // offset below, as Kafka's Partition.appendRecordsToFollowerOrFutureReplica does.
                    followerLog.resetTo(first.baseOffset());
                }
                // From the leader's mapping into the follower's, the one copy there is: no heap in between.
                followerLog.appendAsFollower(mapped, cluster.nowMs());
            }
        }
        if (leaderLog.logStartOffset() > followerLog.logStartOffset() && leaderLog.logStartOffset() <= followerLog.logEndOffset()) {
            followerLog.deleteRecordsBefore(leaderLog.logStartOffset());
        }
        if (partition.isFollowerCaughtUp(follower)) {
            cluster.scheduler().cancel(ReplicaManager.lagTimerKey(partition, follower));
            cluster.controller().maybeExpandIsr(partition, follower);
        }
        cluster.replicaManager().maybeIncrementLeaderHighWatermark(partition);
    }

    /**
     * KIP-279: the follower asks the leader for the end offset of its latest epoch. If the leader answers with an epoch
     * the follower also has, the follower truncates to the smaller of the two end offsets of that epoch and is done; if
     * the follower does not have the answered epoch, it truncates to the end of its own largest epoch below it and asks
     * again about that one, until the epochs agree. A leader with no epoch at or below the one asked shares nothing
     * with the follower from its log start on.
     */
    private void truncateToLeader(Partition partition, int follower, PartitionLog leaderLog, PartitionLog followerLog) {
        OptionalInt latest = followerLog.latestEpoch();
        if (latest.isEmpty()) {
            return;
        }
        int ask = latest.getAsInt();
        while (true) {
            EpochEndOffset answer = leaderLog.endOffsetForEpoch(ask);
            if (answer.endOffset() == EpochEndOffset.UNDEFINED_EPOCH_OFFSET) {
                truncate(partition, follower, followerLog,
                        Math.min(followerLog.logEndOffset(), leaderLog.logStartOffset()), "the leader has no epoch at or below " + ask);
                return;
            }
            EpochEndOffset own = followerLog.endOffsetForEpoch(answer.leaderEpoch());
            if (own.leaderEpoch() == answer.leaderEpoch() || own.endOffset() == EpochEndOffset.UNDEFINED_EPOCH_OFFSET) {
                long end = own.endOffset() == EpochEndOffset.UNDEFINED_EPOCH_OFFSET
                        ? answer.endOffset() : Math.min(own.endOffset(), answer.endOffset());
                truncate(partition, follower, followerLog, end,
                        "epoch " + answer.leaderEpoch() + " ends at " + answer.endOffset() + " on the leader");
                return;
            }
            // The leader answered an epoch this follower never had: the follower cuts back to where its own largest
            // epoch below that one ends, and asks again about that epoch (ask only goes down, so this ends).
            truncate(partition, follower, followerLog, own.endOffset(), "the leader answered epoch "
                    + answer.leaderEpoch() + ", which this follower does not have");
            ask = own.leaderEpoch();
        }
    }

    private void truncate(Partition partition, int follower, PartitionLog followerLog, long offset, String reason) {
        long before = followerLog.logEndOffset();
        followerLog.truncateTo(offset);
        long removed = before - followerLog.logEndOffset();
        if (removed <= 0) {
            return;
        }
        cluster.timeline().record(new Truncated(partition.topic().name(), partition.index(), follower, before,
                followerLog.logEndOffset(), removed, partition.leaderEpoch(), reason));
    }
}
