package dev.samsa.cluster;

import dev.samsa.event.BrokerStarted;
import dev.samsa.event.BrokerStopped;
import dev.samsa.event.IsrExpanded;
import dev.samsa.event.IsrShrunk;
import dev.samsa.event.LeaderChanged;
import dev.samsa.log.PartitionLog;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The controller's decisions, as KRaft's controller makes them: leader election (clean from the ISR, unclean when
 * allowed), ISR shrink and expand, and what happens to partitions when a broker stops or comes back. Every decision
 * is an event on the timeline. Stateless: the state lives in {@link Partition} and {@link ClusterMetadata}.
 */
public final class Controller {

    /** How a broker stopped. */
    public enum Stop {
        /** Process crash: in-memory state lost, mapped files (the page cache) kept. */
        CRASH,
        /** Power loss: like a crash, and every byte written since the last flush is gone, possibly mid-batch. */
        POWER_LOSS,
        /** Controlled shutdown: leadership moves away first, logs are flushed and closed. */
        SHUTDOWN,
        /** Cut off from the controller: treated as gone, but the process and its logs live on. */
        FENCED
    }

    /** What an election an admin asked for (ElectLeaders) did. */
    public enum ElectionResult {
        ELECTED,
        /** The partition already has the leader the election would give it. */
        NOT_NEEDED,
        /** No replica may take the lead that the election allows. */
        NO_ELIGIBLE_LEADER
    }

    private final ClusterState cluster;

    Controller(ClusterState cluster) {
        this.cluster = cluster;
    }

    private List<Partition> partitionsWithReplicaOn(int brokerId) {
        List<Partition> out = new ArrayList<>();
        for (Topic topic : cluster.metadata().topics()) {
            for (Partition p : topic.partitions()) {
                if (p.replicas().contains(brokerId)) {
                    out.add(p);
                }
            }
        }
        return out;
    }

    /** Takes a broker out: new leaders for what it led, out of every ISR, its logs closed as {@code how} says. */
    public void brokerStopped(int brokerId, Stop how, Random random) {
        cluster.metadata().markAlive(brokerId, false);
        cluster.timeline().record(new BrokerStopped(brokerId, how.toString()));
        for (Partition p : partitionsWithReplicaOn(brokerId)) {
            if (p.forgetStaleLeadership(brokerId)) {
                leadershipLost(p);
            }
            if (p.leader() == brokerId && how == Stop.FENCED) {
                // The fenced broker's process lives on and never hears of the new leader: it goes on serving as leader.
                p.believeStillLeading(brokerId);
            }
            if (p.leader() == brokerId) {
                elect(p, brokerId, how == Stop.SHUTDOWN ? "controlled shutdown of broker " + brokerId : "broker " + brokerId + " stopped");
            } else {
                removeFromIsr(p, brokerId, "broker " + brokerId + " stopped");
            }
            cluster.scheduler().cancel(ReplicaManager.lagTimerKey(p, brokerId));
            p.follower(brokerId).reconciledEpoch = -1;
            PartitionLog log = how == Stop.FENCED ? null : p.detachLog(brokerId);
            if (log != null) {
                switch (how) {
                    case POWER_LOSS -> log.closeWithPowerLoss(random.nextInt(64));
                    case SHUTDOWN -> {
                        log.flush(cluster.nowMs());
                        log.close();
                    }
                    case CRASH, FENCED -> log.close();
                }
            }
        }
    }

    /** Brings a broker back: its logs recovered from disk, its replicas followers that reconcile and catch up. */
    public void brokerStarted(int brokerId) {
        cluster.metadata().markAlive(brokerId, true);
        cluster.timeline().record(new BrokerStarted(brokerId));
        List<Partition> partitions = partitionsWithReplicaOn(brokerId);
        for (Partition p : partitions) {
            if (p.forgetStaleLeadership(brokerId)) {
                // A healed stale leader hears of the new leader and becomes a follower.
                leadershipLost(p);
            }
            if (p.log(brokerId) == null) {
                p.attachLog(brokerId, cluster.metadata().openLog(p.topic(), p, brokerId));
            }
            p.follower(brokerId).reconciledEpoch = -1;
        }
        for (Partition p : partitions) {
            if (!p.isOnline()) {
                elect(p, -1, "broker " + brokerId + " started");
            }
            cluster.fetcher().replicateSoon(p);
        }
    }

    /**
     * A broker stopped leading {@code partition} (a new leader elsewhere, a stale leader healed, a shutdown, a
     * reassignment): what is parked on it there is answered at once, NOT_LEADER_OR_FOLLOWER, as Kafka's
     * {@code ReplicaManager.completeDelayedOperationsWhenNotPartitionLeader} does, so that clients retry on the new
     * leader instead of waiting for their request timeout.
     */
    void leadershipLost(Partition partition) {
        cluster.purgatory().checkAndComplete(partition.topicPartition());
    }

    /**
     * Chooses a leader for {@code partition} among live replicas other than {@code leaving}: the first in replica
     * order that is in the ISR; else, if unclean.leader.election.enable, the first live replica; else none (offline).
     */
    public void elect(Partition partition, int leaving, String reason) {
        elect(partition, leaving, reason, uncleanAllowed(partition));
    }

    private void elect(Partition partition, int leaving, String reason, boolean uncleanAllowed) {
        List<Integer> isr = new ArrayList<>(partition.isr());
        int chosen = -1;
        boolean unclean = false;
        for (int r : partition.replicas()) {
            if (r != leaving && isr.contains(r) && canLead(partition, r)) {
                chosen = r;
                break;
            }
        }
        if (chosen < 0 && uncleanAllowed) {
            for (int r : partition.replicas()) {
                if (r != leaving && canLead(partition, r)) {
                    chosen = r;
                    unclean = true;
                    break;
                }
            }
        }
        List<Integer> newIsr = new ArrayList<>();
        if (unclean) {
            newIsr.add(chosen);
        } else {
            for (int r : isr) {
                if (r != leaving && cluster.metadata().isAlive(r)) {
                    newIsr.add(r);
                }
            }
            if (newIsr.isEmpty()) {
                // Kafka never empties the ISR: the last member stays, so that only it may lead cleanly again.
                newIsr.add(isr.isEmpty() ? leaving : isr.get(isr.size() - 1));
            }
        }
        changeLeader(partition, chosen, newIsr, unclean, reason);
    }

    /**
     * Preferred election (ElectLeaders PREFERRED, and the automatic rebalance): the first replica takes the lead if it
     * is alive and in the ISR, as Kafka's PartitionChangeBuilder elects with Election.PREFERRED.
     */
    public ElectionResult electPreferred(Partition partition, String reason) {
        int preferred = partition.replicas().get(0);
        if (partition.leader() == preferred) {
            return ElectionResult.NOT_NEEDED;
        }
        if (!partition.isr().contains(preferred) || !canLead(partition, preferred)) {
            return ElectionResult.NO_ELIGIBLE_LEADER;
        }
        changeLeader(partition, preferred, partition.isr(), false, reason);
        return ElectionResult.ELECTED;
    }

    /**
     * Unclean election asked for by an admin (ElectLeaders UNCLEAN): only for a partition without a leader, an in-sync
     * replica first and else any live one, whatever unclean.leader.election.enable says.
     */
    public ElectionResult electUnclean(Partition partition, String reason) {
        if (partition.isOnline()) {
            return ElectionResult.NOT_NEEDED;
        }
        if (partition.replicas().stream().noneMatch(r -> canLead(partition, r))) {
            return ElectionResult.NO_ELIGIBLE_LEADER;
        }
        elect(partition, -1, reason, true);
        return ElectionResult.ELECTED;
    }

    /** What the controller does when it takes office: resumes persisted reassignments, starts the imbalance check. */
    public void activate() {
        cluster.reassignments().resumePersisted();
        cluster.leaderBalancer().schedule();
        cluster.logRetention().schedule();
        cluster.logCleaner().schedule();
        cluster.replicaManager().scheduleProducerExpiration();
    }

    void changeLeader(Partition partition, int chosen, List<Integer> newIsr, boolean unclean, String reason) {
        int oldLeader = partition.leader();
        partition.setIsr(newIsr);
        partition.setLeader(chosen, partition.leaderEpoch() + 1, cluster.nowMs());
        PartitionLog leaderLog = partition.leaderLog();
        if (leaderLog != null) {
            leaderLog.assignLeaderEpoch(partition.leaderEpoch());
        }
        if (leaderLog != null && partition.highWatermark() > leaderLog.logEndOffset()) {
            partition.resetHighWatermark(leaderLog.logEndOffset());
        }
        cluster.timeline().record(new LeaderChanged(partition.topic().name(), partition.index(), oldLeader, chosen,
                partition.leaderEpoch(), newIsr, reason, unclean));
        if (partition.isOnline()) {
            partition.maybeAdvanceHighWatermark();
            // The new epoch gave every in-sync follower a fresh replica.lag.time.max.ms to fetch in.
            newIsr.forEach(follower -> cluster.replicaManager().scheduleLagCheck(partition, follower));
            cluster.fetcher().replicateSoon(partition);
        }
        leadershipLost(partition);
        if (oldLeader != chosen) {
            cluster.metadata().leaderChanged(partition, oldLeader, chosen);
        }
    }

    private boolean canLead(Partition partition, int broker) {
        return cluster.metadata().isAlive(broker) && partition.log(broker) != null;
    }

    boolean uncleanAllowed(Partition partition) {
        int brokerId = cluster.metadata().controllerId();
        if (brokerId < 0) {
            return false;
        }
        return cluster.metadata().effectiveConfig(partition.topic(), brokerId).uncleanLeaderElectionEnable();
    }

    void maybeExpandIsr(Partition partition, int follower) {
        if (partition.isr().contains(follower) || !cluster.metadata().isAlive(follower)) {
            return;
        }
        List<Integer> isr = new ArrayList<>(partition.isr());
        isr.add(follower);
        partition.setIsr(isr);
        cluster.timeline().record(new IsrExpanded(partition.topic().name(), partition.index(), isr, follower));
        cluster.reassignments().maybeComplete(partition);
    }

    void removeFromIsr(Partition partition, int follower, String reason) {
        if (!partition.isr().contains(follower) || partition.isr().size() == 1) {
            return;
        }
        List<Integer> isr = new ArrayList<>(partition.isr());
        isr.remove(Integer.valueOf(follower));
        partition.setIsr(isr);
        cluster.timeline().record(new IsrShrunk(partition.topic().name(), partition.index(), isr, follower, reason));
        cluster.replicaManager().maybeIncrementLeaderHighWatermark(partition);
        cluster.purgatory().checkAndComplete(partition.topicPartition());
    }
}
