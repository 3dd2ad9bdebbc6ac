package dev.samsa.cluster;

import dev.samsa.event.Truncated;
import dev.samsa.log.EpochEndOffset;
import dev.samsa.log.PartitionLog;
import java.util.OptionalInt;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.RecordBatch;

/**
 * Followers pulling from their leader, in-process. A fetch runs as its own task on the cluster loop after the leader
 * appends, so an acks=all produce is parked first and completed when the followers' fetches move the high watermark,
 * as in Kafka.
 *
 * <p>The two sides keep apart as they would across a network. The follower reads and writes its own log; the leader
 * learns of it only what a fetch carries (the fetch offset and the follower's log start offset), through
 * {@link Partition#updateFollowerFetchState}, and answers OffsetForLeaderEpoch from its own log. Before its first fetch
 * in a new leader epoch a follower reconciles its log as Kafka's {@code AbstractFetcherThread} does (KIP-101/279).
 */
public final class ReplicaFetcher {

    private static final int MAX_FETCH_BYTES = 1024 * 1024;

    private final ClusterState cluster;

    public ReplicaFetcher(ClusterState cluster) {
        this.cluster = cluster;
    }

    /** Lets every follower of {@code partition} catch up in a task of its own. */
    public void replicateSoon(Partition partition) {
        String key = "replicate-" + partition.topicPartition();
        if (!cluster.scheduler().isScheduled(key)) {
            cluster.scheduler().schedule(key, cluster.nowMs(), () -> replicate(partition));
        }
    }

    void replicate(Partition partition) {
        if (cluster.metadata().partition(partition.topicPartition()) != partition || !partition.isOnline()) {
            return;
        }
        for (int follower : partition.followers()) {
            fetch(partition, follower);
        }
    }

    /** One follower catches up as far as it can, one fetch after another; returns whether its log moved. */
    boolean fetch(Partition partition, int follower) {
        PartitionLog leaderLog = partition.leaderLog();
        PartitionLog followerLog = partition.log(follower);
        Partition.FollowerState state = partition.follower(follower);
        if (leaderLog == null || followerLog == null
                || !cluster.faults().canReplicate(partition.topicPartition(), partition.leader(), follower)) {
            return false;
        }
        long before = followerLog.logEndOffset();
        boolean truncated = false;
        if (state.reconciledEpoch != partition.leaderEpoch()) {
            truncated = truncateToLeader(partition, follower, leaderLog, followerLog);
            state.reconciledEpoch = partition.leaderEpoch();
        }
        while (true) {
            long fetchOffset = followerLog.logEndOffset();
            if (fetchOffset > leaderLog.logEndOffset()) {
                // OFFSET_OUT_OF_RANGE above the leader's end (an unclean election): Kafka's follower truncates to it.
                truncated |= truncate(partition, follower, followerLog, leaderLog.logEndOffset(), "fetch offset " + fetchOffset
                        + " above the leader's log end offset");
                continue;
            }
            if (fetchOffset < leaderLog.logStartOffset()) {
                // OFFSET_OUT_OF_RANGE below: the leader deleted what this follower still needs, it starts over there.
                long start = followerLog.logStartOffset();
                followerLog.resetTo(leaderLog.logStartOffset());
                if (fetchOffset > start) {
                    truncated = true;
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
            MemoryRecords records = leaderLog.read(fetchOffset, MAX_FETCH_BYTES, leaderLog.logEndOffset(), true).records();
            if (records.sizeInBytes() == 0) {
                break;
            }
            RecordBatch first = records.batches().iterator().next();
            if (fetchOffset == followerLog.logStartOffset() && first.baseOffset() < fetchOffset && first.lastOffset() >= fetchOffset) {
                // The leader's log start offset (raised by DeleteRecords) falls inside a batch and this follower's
                // log is empty from there: it starts at the batch's base offset, and takes the leader's log start
                // offset below, as Kafka's Partition.appendRecordsToFollowerOrFutureReplica does.
                followerLog.resetTo(first.baseOffset());
            }
            followerLog.appendAsFollower(records, cluster.nowMs());
        }
        if (leaderLog.logStartOffset() > followerLog.logStartOffset() && leaderLog.logStartOffset() <= followerLog.logEndOffset()) {
            followerLog.deleteRecordsBefore(leaderLog.logStartOffset());
        }
        if (partition.isFollowerCaughtUp(follower)) {
            cluster.scheduler().cancel(Controller.lagTimerKey(partition, follower));
            cluster.controller().maybeExpandIsr(partition, follower);
        }
        if (partition.maybeAdvanceHighWatermark()) {
            cluster.controller().highWatermarkMoved(partition);
        }
        return truncated || followerLog.logEndOffset() != before;
    }

    /**
     * KIP-279: the follower asks the leader for the end offset of its latest epoch. If the leader answers with an epoch
     * the follower also has, the follower truncates to the smaller of the two end offsets of that epoch and is done; if
     * the follower does not have the answered epoch, it truncates to the end of its own largest epoch below it and asks
     * again about that one, until the epochs agree. A leader with no epoch at or below the one asked shares nothing
     * with the follower from its log start on. Returns whether anything was removed.
     */
    private boolean truncateToLeader(Partition partition, int follower, PartitionLog leaderLog, PartitionLog followerLog) {
        OptionalInt latest = followerLog.latestEpoch();
        if (latest.isEmpty()) {
            return false;
        }
        boolean truncated = false;
        int ask = latest.getAsInt();
        while (true) {
            EpochEndOffset answer = leaderLog.endOffsetForEpoch(ask);
            if (answer.endOffset() == EpochEndOffset.UNDEFINED_EPOCH_OFFSET) {
                return truncated | truncate(partition, follower, followerLog,
                        Math.min(followerLog.logEndOffset(), leaderLog.logStartOffset()), "the leader has no epoch at or below " + ask);
            }
            EpochEndOffset own = followerLog.endOffsetForEpoch(answer.leaderEpoch());
            if (own.leaderEpoch() == answer.leaderEpoch() || own.endOffset() == EpochEndOffset.UNDEFINED_EPOCH_OFFSET) {
                long end = own.endOffset() == EpochEndOffset.UNDEFINED_EPOCH_OFFSET
                        ? answer.endOffset() : Math.min(own.endOffset(), answer.endOffset());
                return truncated | truncate(partition, follower, followerLog, end,
                        "epoch " + answer.leaderEpoch() + " ends at " + answer.endOffset() + " on the leader");
            }
            // The leader answered an epoch this follower never had: the follower cuts back to where its own largest
            // epoch below that one ends, and asks again about that epoch (ask only goes down, so this ends).
            truncated |= truncate(partition, follower, followerLog, own.endOffset(), "the leader answered epoch "
                    + answer.leaderEpoch() + ", which this follower does not have");
            ask = own.leaderEpoch();
        }
    }

    private boolean truncate(Partition partition, int follower, PartitionLog followerLog, long offset, String reason) {
        long before = followerLog.logEndOffset();
        followerLog.truncateTo(offset);
        long removed = before - followerLog.logEndOffset();
        if (removed <= 0) {
            return false;
        }
        cluster.timeline().record(new Truncated(partition.topic().name(), partition.index(), follower, before,
                followerLog.logEndOffset(), removed, partition.leaderEpoch(), reason));
        return true;
    }
}
