package dev.samsa.cluster;

import dev.samsa.log.EpochEndOffset;
import dev.samsa.log.PartitionLog;
import java.util.OptionalInt;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.RecordBatch;

/**
 * Followers pulling from their leader, in-process. A fetch runs as its own task on the cluster loop after the leader
 * appends, so an acks=all produce is parked first and completed when the followers' fetches move the high watermark,
 * as in Kafka. Before its first fetch from a new leader epoch a follower reconciles its log the way Kafka's does
 * (KIP-101/279): it asks the leader for the end offset of its own latest epoch and truncates to it.
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

    /** One follower catches up as far as it can; returns whether it moved. */
    boolean fetch(Partition partition, int follower) {
        PartitionLog leaderLog = partition.leaderLog();
        PartitionLog followerLog = partition.log(follower);
        Partition.FollowerState state = partition.follower(follower);
        if (leaderLog == null || followerLog == null || cluster.faults().isPaused(partition.topicPartition(), follower)
                || !cluster.faults().canReplicate(partition.leader(), follower)) {
            return false;
        }
        long before = followerLog.logEndOffset();
        if (state.reconciledEpoch != partition.leaderEpoch()) {
            truncateToLeader(partition, follower, leaderLog, followerLog);
            state.reconciledEpoch = partition.leaderEpoch();
        }
        if (followerLog.logEndOffset() < leaderLog.logStartOffset()) {
            // The leader deleted what this follower still needs: start over at the leader's log start.
            followerLog.resetTo(leaderLog.logStartOffset());
        }
        while (followerLog.logEndOffset() < leaderLog.logEndOffset()) {
            MemoryRecords records = leaderLog.read(followerLog.logEndOffset(), MAX_FETCH_BYTES, leaderLog.logEndOffset(), true).records();
            if (records.sizeInBytes() == 0) {
                break;
            }
            RecordBatch first = records.batches().iterator().next();
            long end = followerLog.logEndOffset();
            if (end == followerLog.logStartOffset() && first.baseOffset() < end && first.lastOffset() >= end) {
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
        if (followerLog.logEndOffset() == leaderLog.logEndOffset()) {
            state.lastCaughtUpMs = cluster.nowMs();
            cluster.scheduler().cancel(Controller.lagTimerKey(partition, follower));
            cluster.controller().maybeExpandIsr(partition, follower);
        }
        if (partition.maybeAdvanceHighWatermark()) {
            cluster.controller().highWatermarkMoved(partition);
        }
        return followerLog.logEndOffset() != before;
    }

    private void truncateToLeader(Partition partition, int follower, PartitionLog leaderLog, PartitionLog followerLog) {
        long before = followerLog.logEndOffset();
        for (int round = 0; round < 100; round++) {
            OptionalInt latest = followerLog.latestEpoch();
            if (latest.isEmpty()) {
                break;
            }
            EpochEndOffset answer = leaderLog.endOffsetForEpoch(latest.getAsInt());
            long target = answer.endOffset() == EpochEndOffset.UNDEFINED_EPOCH_OFFSET
                    ? Math.min(partition.highWatermark(), followerLog.logEndOffset())
                    : Math.min(answer.endOffset(), followerLog.logEndOffset());
            long end = followerLog.logEndOffset();
            followerLog.truncateTo(target);
            if (answer.leaderEpoch() == latest.getAsInt() || followerLog.logEndOffset() == end) {
                break;
            }
        }
        long removed = before - followerLog.logEndOffset();
        if (removed > 0) {
            cluster.timeline().record("Truncated", partition.topicPartition() + " broker=" + follower + " from="
                    + before + " to=" + followerLog.logEndOffset() + " records=" + removed + " leaderEpoch=" + partition.leaderEpoch());
        }
    }
}
