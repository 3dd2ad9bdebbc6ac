package dev.samsa.cluster;

import dev.samsa.event.StaleLeaderAppend;
import dev.samsa.log.LogAppendInfo;
import dev.samsa.log.PartitionLog;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.FencedLeaderEpochException;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.UnknownLeaderEpochException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.MemoryRecords;

/**
 * Appends to and reads from the partitions a broker leads, the way Kafka's ReplicaManager checks leadership, leader
 * epochs and min.insync.replicas first. Owned by the cluster loop.
 */
public final class ReplicaManager {

    private final ClusterState cluster;

    public ReplicaManager(ClusterState cluster) {
        this.cluster = cluster;
    }

    /**
     * @throws UnknownTopicOrPartitionException when the partition does not exist
     * @throws NotLeaderOrFollowerException when {@code brokerId} does not lead it
     */
    public Partition leaderPartition(int brokerId, TopicPartition tp) {
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
        int minIsr = (Integer) cluster.metadata().effectiveConfigs(partition.topic(), brokerId).get("min.insync.replicas");
        return partition.isr().size() < minIsr
                ? Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND
                : Errors.NONE;
    }

    /** Kafka's check of the epoch a client believes current, against what {@code brokerId} believes: -1 means "no opinion". */
    public static void checkLeaderEpoch(Partition partition, int brokerId, int currentLeaderEpoch) {
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
     */
    public LogAppendInfo appendAsLeader(int brokerId, TopicPartition tp, MemoryRecords records, short acks) {
        Partition partition = leaderPartition(brokerId, tp);
        if (acks == -1) {
            int minIsr = (Integer) cluster.metadata().effectiveConfigs(partition.topic(), brokerId).get("min.insync.replicas");
            if (partition.isrSeenBy(brokerId).size() < minIsr) {
                throw new NotEnoughReplicasException("The size of the current ISR " + partition.isrSeenBy(brokerId)
                        + " is insufficient to satisfy the min.isr requirement of " + minIsr + " for partition " + tp);
            }
        }
        PartitionLog log = partition.log(brokerId);
        LogAppendInfo info = log.appendAsLeader(records, partition.leaderEpochSeenBy(brokerId), cluster.nowMs());
        scheduleFlush(partition, brokerId, log);
        if (partition.isStaleLeader(brokerId)) {
            cluster.timeline().record(new StaleLeaderAppend(tp.topic(), tp.partition(), brokerId,
                    partition.leaderEpochSeenBy(brokerId), log.logEndOffset()));
            return info;
        }
        if (partition.maybeAdvanceHighWatermark()) {
            cluster.controller().highWatermarkMoved(partition);
        }
        if (partition.replicas().size() > 1) {
            cluster.fetcher().replicateSoon(partition);
        }
        return info;
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
