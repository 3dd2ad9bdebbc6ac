package dev.samsa.cluster;

import dev.samsa.event.ReassignmentAbandoned;
import dev.samsa.event.ReassignmentCancelled;
import dev.samsa.event.ReassignmentCompleted;
import dev.samsa.event.ReassignmentStarted;
import dev.samsa.log.PartitionLog;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.InvalidReplicaAssignmentException;
import org.apache.kafka.common.errors.InvalidReplicationFactorException;
import org.apache.kafka.common.errors.NoReassignmentInProgressException;

/**
 * Partition reassignment as KRaft's controller runs it (ReplicationControlManager.changePartitionReassignment,
 * PartitionReassignmentReplicas, PartitionReassignmentRevert):
 * <ol>
 *   <li>The replicas become the target followed by the replicas to remove; the adding replicas open a log on their
 *       brokers and catch up as followers.</li>
 *   <li>Once the ISR, less the replicas to remove, holds every target replica, the removed replicas go: their logs are
 *       closed and deleted, a leader is elected from the target if the current one leaves (else the leader epoch is
 *       bumped, as Kafka does when the replica set shrinks), and the new assignment is persisted.</li>
 * </ol>
 * A reassignment that only reorders replicas completes at once and moves no leader. A new reassignment of a partition
 * in progress replaces the old one, computed against the current (full) replica list as Kafka computes it. Cancelling
 * drops the adding replicas and keeps the original ones. Every step is an event on the timeline. Stateless; the state
 * lives in {@link Partition}, and in the topic's properties file while a reassignment is unfinished, so that a
 * reopened cluster resumes it.
 */
public final class Reassignments {

    private final ClusterState cluster;

    Reassignments(ClusterState cluster) {
        this.cluster = cluster;
    }

    /**
     * Starts moving {@code partition} to {@code target}.
     *
     * @param allowReplicationFactorChange false refuses a target whose size differs from the replicas before any
     *                                     reassignment in progress (KIP-860)
     * @throws InvalidReplicaAssignmentException for an empty target, an unregistered broker or a broker named twice
     * @throws InvalidReplicationFactorException when the replication factor would change and that is not allowed
     */
    public void reassign(Partition partition, List<Integer> target, boolean allowReplicationFactorChange) {
        throwIfInvalidAssignment(target);
        List<Integer> current = partition.replicas();
        if (!allowReplicationFactorChange) {
            int size = minus(current, partition.addingReplicas()).size();
            if (size != target.size()) {
                throw new InvalidReplicationFactorException("The replication factor is changed from " + size + " to "
                        + target.size());
            }
        }
        List<Integer> removing = new ArrayList<>(new TreeSet<>(minus(current, target)));
        List<Integer> adding = new ArrayList<>(new TreeSet<>(minus(target, current)));
        List<Integer> replicas = new ArrayList<>(target);
        replicas.addAll(removing);
        partition.setReplicas(replicas, adding, removing);
        for (int broker : adding) {
            if (cluster.metadata().isAlive(broker) && partition.log(broker) == null) {
                partition.attachLog(broker, cluster.metadata().openLog(partition.topic(), partition, broker));
            }
            partition.follower(broker).lastCaughtUpMs = cluster.nowMs();
        }
        if (partition.isReassigning()) {
            cluster.timeline().record(new ReassignmentStarted(partition.topic().name(), partition.index(), replicas, adding,
                    removing));
        }
        cluster.metadata().persist(partition.topic());
        if (!partition.isReassigning()) {
            cluster.timeline().record(new ReassignmentCompleted(partition.topic().name(), partition.index(), replicas,
                    partition.leader(), partition.leaderEpoch()));
            return;
        }
        if (partition.isOnline()) {
            cluster.fetcher().replicateSoon(partition);
        }
        maybeComplete(partition);
    }

    /**
     * Cancels the reassignment of {@code partition}: the adding replicas go, the original ones stay.
     *
     * @throws NoReassignmentInProgressException when there is none
     * @throws InvalidReplicaAssignmentException when only adding replicas are in sync and reverting would need an
     *                                           unclean election that the topic does not allow
     */
    public void cancel(Partition partition) {
        if (!partition.isReassigning()) {
            throw new NoReassignmentInProgressException("No partition reassignment is in progress for the topic "
                    + "partition " + partition.topicPartition() + ".");
        }
        List<Integer> removed = partition.addingReplicas();
        List<Integer> original = minus(partition.replicas(), removed);
        List<Integer> isr = minus(partition.isr(), removed);
        if (isr.isEmpty()) {
            if (!cluster.controller().uncleanAllowed(partition)) {
                throw new InvalidReplicaAssignmentException("Unable to revert partition assignment for "
                        + partition.topic().name() + ":" + partition.index() + " because it would require an unclean leader election.");
            }
            isr = List.of(original.get(0));
        }
        cluster.timeline().record(new ReassignmentCancelled(partition.topic().name(), partition.index(), original, removed));
        finish(partition, original, isr, removed, "reassignment of " + partition.topicPartition() + " cancelled");
    }

    /** Completes the reassignment of {@code partition} if every target replica is now in sync. */
    void maybeComplete(Partition partition) {
        if (!partition.isReassigning()) {
            return;
        }
        List<Integer> removing = partition.removingReplicas();
        List<Integer> target = minus(partition.replicas(), removing);
        List<Integer> isr = minus(partition.isr(), removing);
        if (isr.isEmpty() || !isr.containsAll(target)) {
            return;
        }
        finish(partition, target, isr, removing, "reassignment of " + partition.topicPartition() + " completed");
        cluster.timeline().record(new ReassignmentCompleted(partition.topic().name(), partition.index(), target,
                partition.leader(), partition.leaderEpoch()));
    }

    /** Reassignments {@link ClusterMetadata#loadTopics} found unfinished start again from their original replicas. */
    void resumePersisted() {
        for (Map.Entry<TopicPartition, List<Integer>> e : cluster.metadata().takeUnfinishedReassignments().entrySet()) {
            Partition partition = cluster.metadata().partition(e.getKey());
            try {
                reassign(partition, e.getValue(), true);
            } catch (ApiException abandoned) {
                cluster.timeline().record(new ReassignmentAbandoned(e.getKey().topic(), e.getKey().partition(), e.getValue(),
                        abandoned.getMessage()));
                cluster.metadata().persist(partition.topic());
            }
        }
    }

    /** Every partition being reassigned, in topic and partition order. */
    public List<Partition> inProgress() {
        List<Partition> out = new ArrayList<>();
        for (Topic topic : cluster.metadata().topics()) {
            for (Partition p : topic.partitions()) {
                if (p.isReassigning()) {
                    out.add(p);
                }
            }
        }
        return out;
    }

    private void finish(Partition partition, List<Integer> replicas, List<Integer> isr, List<Integer> removed, String reason) {
        int leader = partition.leader();
        partition.setReplicas(replicas, List.of(), List.of());
        partition.setIsr(isr);
        if (!isr.contains(leader)) {
            cluster.controller().elect(partition, -1, reason);
        } else if (!removed.isEmpty()) {
            // Kafka bumps the leader epoch whenever the replica set loses a broker.
            partition.setLeader(leader, partition.leaderEpoch() + 1, cluster.nowMs());
            if (partition.leaderLog() != null) {
                partition.leaderLog().assignLeaderEpoch(partition.leaderEpoch());
            }
        }
        for (int broker : removed) {
            cluster.scheduler().cancel(ReplicaManager.lagTimerKey(partition, broker));
            PartitionLog log = partition.detachLog(broker);
            if (log != null) {
                log.delete();
            } else {
                cluster.metadata().deleteLogDirectory(partition.topic(), partition, broker);
            }
        }
        cluster.metadata().persist(partition.topic());
        cluster.replicaManager().maybeIncrementLeaderHighWatermark(partition);
        if (partition.isOnline()) {
            cluster.fetcher().replicateSoon(partition);
        }
        cluster.purgatory().checkAndComplete(partition.topicPartition());
    }

    /** @throws InvalidReplicaAssignmentException as Kafka's validateManualPartitionAssignment */
    private void throwIfInvalidAssignment(List<Integer> target) {
        if (target.isEmpty()) {
            throw new InvalidReplicaAssignmentException("The manual partition assignment includes an empty replica list.");
        }
        TreeSet<Integer> seen = new TreeSet<>();
        for (int broker : new TreeSet<>(target)) {
            if (!cluster.metadata().brokerIds().contains(broker)) {
                throw new InvalidReplicaAssignmentException("The manual partition assignment includes broker " + broker
                        + ", but no such broker is registered.");
            }
        }
        for (int broker : target) {
            if (!seen.add(broker)) {
                throw new InvalidReplicaAssignmentException("The manual partition assignment includes the broker "
                        + broker + " more than once.");
            }
        }
    }

    private static List<Integer> minus(List<Integer> a, List<Integer> b) {
        List<Integer> out = new ArrayList<>(a);
        out.removeAll(b);
        return out;
    }
}
