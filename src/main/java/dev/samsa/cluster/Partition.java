package dev.samsa.cluster;

import dev.samsa.log.PartitionLog;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * One partition as the controller and its leader see it: replicas, leader, leader epoch, ISR, high watermark, the log
 * of each replica whose broker is up, and the leader's view of each follower. Owned by the cluster loop.
 *
 * <p>Leader -1 means offline: no replica that may lead is up. The high watermark is the smallest log end offset among
 * the ISR and never goes back while a leader stays.
 *
 * <p>During a reassignment, as in KRaft's PartitionRegistration, the replicas are the target followed by the replicas
 * being removed; adding and removing replicas are listed apart, and both lists are empty otherwise.
 */
public final class Partition {

    /** What the leader knows of one follower. */
    static final class FollowerState {
        /** Cluster time at which this follower last had everything the leader had. */
        long lastCaughtUpMs;
        /** The leader epoch this follower has reconciled its log with (truncation by OffsetForLeaderEpoch). */
        int reconciledEpoch = -1;
    }

    private final Topic topic;
    private final int index;
    private final TopicPartition topicPartition;
    private List<Integer> replicas;
    private List<Integer> addingReplicas = List.of();
    private List<Integer> removingReplicas = List.of();
    private final Map<Integer, PartitionLog> logs = new HashMap<>();
    private final Map<Integer, FollowerState> followers = new HashMap<>();
    private int leader;
    private int leaderEpoch;
    private List<Integer> isr;
    private long highWatermark;

    Partition(Topic topic, int index, List<Integer> replicas) {
        this.topic = topic;
        this.index = index;
        this.topicPartition = new TopicPartition(topic.name(), index);
        this.replicas = List.copyOf(replicas);
        this.leader = replicas.get(0);
        this.isr = List.copyOf(replicas);
        for (int r : replicas) {
            followers.put(r, new FollowerState());
        }
    }

    public Topic topic() {
        return topic;
    }

    public int index() {
        return index;
    }

    public TopicPartition topicPartition() {
        return topicPartition;
    }

    /** Replica order: the first is the preferred leader. */
    public List<Integer> replicas() {
        return replicas;
    }

    public List<Integer> addingReplicas() {
        return addingReplicas;
    }

    public List<Integer> removingReplicas() {
        return removingReplicas;
    }

    public boolean isReassigning() {
        return !addingReplicas.isEmpty() || !removingReplicas.isEmpty();
    }

    /** Replaces the replica set, keeping the leader's view of each follower that stays and starting one for each new. */
    void setReplicas(List<Integer> replicas, List<Integer> adding, List<Integer> removing) {
        this.replicas = List.copyOf(replicas);
        this.addingReplicas = List.copyOf(adding);
        this.removingReplicas = List.copyOf(removing);
        followers.keySet().retainAll(this.replicas);
        for (int r : this.replicas) {
            followers.computeIfAbsent(r, b -> new FollowerState());
        }
    }

    public int leader() {
        return leader;
    }

    public boolean isOnline() {
        return leader >= 0;
    }

    public int leaderEpoch() {
        return leaderEpoch;
    }

    public List<Integer> isr() {
        return isr;
    }

    public long highWatermark() {
        return highWatermark;
    }

    /**
     * What a broker cut off from the controller still believes it leads: it keeps serving clients as leader of its
     * old epoch, with the ISR and high watermark it last knew, until it hears otherwise (a "zombie" leader).
     */
    record StaleLeadership(int leaderEpoch, List<Integer> isr, long highWatermark) {
    }

    private final Map<Integer, StaleLeadership> staleLeaders = new HashMap<>();

    void believeStillLeading(int brokerId) {
        staleLeaders.put(brokerId, new StaleLeadership(leaderEpoch, isr, highWatermark));
    }

    void forgetStaleLeadership(int brokerId) {
        staleLeaders.remove(brokerId);
    }

    /** Whether {@code brokerId} serves this partition as its leader: the real one, or one that has not heard otherwise. */
    public boolean isLedBy(int brokerId) {
        return (leader == brokerId || staleLeaders.containsKey(brokerId)) && logs.containsKey(brokerId);
    }

    public boolean isStaleLeader(int brokerId) {
        return leader != brokerId && staleLeaders.containsKey(brokerId);
    }

    /** The leader epoch as {@code brokerId} believes it. */
    public int leaderEpochSeenBy(int brokerId) {
        StaleLeadership stale = leader == brokerId ? null : staleLeaders.get(brokerId);
        return stale == null ? leaderEpoch : stale.leaderEpoch();
    }

    /** The high watermark as {@code brokerId} believes it: a stale leader's stays where it was, no follower reaches it. */
    public long highWatermarkSeenBy(int brokerId) {
        StaleLeadership stale = leader == brokerId ? null : staleLeaders.get(brokerId);
        return stale == null ? highWatermark : stale.highWatermark();
    }

    public List<Integer> isrSeenBy(int brokerId) {
        StaleLeadership stale = leader == brokerId ? null : staleLeaders.get(brokerId);
        return stale == null ? isr : stale.isr();
    }

    /** The log of the replica on {@code brokerId}, or null while that broker is down. */
    public PartitionLog log(int brokerId) {
        return logs.get(brokerId);
    }

    public PartitionLog leaderLog() {
        return leader < 0 ? null : logs.get(leader);
    }

    void attachLog(int brokerId, PartitionLog log) {
        logs.put(brokerId, log);
    }

    PartitionLog detachLog(int brokerId) {
        return logs.remove(brokerId);
    }

    Collection<PartitionLog> logs() {
        return logs.values();
    }

    FollowerState follower(int brokerId) {
        return followers.get(brokerId);
    }

    List<Integer> followers() {
        List<Integer> out = new ArrayList<>(replicas);
        out.remove(Integer.valueOf(leader));
        return out;
    }

    void setLeader(int leader, int leaderEpoch) {
        this.leader = leader;
        this.leaderEpoch = leaderEpoch;
    }

    void setIsr(List<Integer> isr) {
        this.isr = List.copyOf(isr);
    }

    /** Recomputes the high watermark as the smallest log end offset of the ISR; returns true if it moved. */
    boolean maybeAdvanceHighWatermark() {
        PartitionLog leaderLog = leaderLog();
        if (leaderLog == null) {
            return false;
        }
        long min = leaderLog.logEndOffset();
        for (int replica : isr) {
            PartitionLog log = logs.get(replica);
            if (log != null) {
                min = Math.min(min, log.logEndOffset());
            }
        }
        if (min > highWatermark) {
            highWatermark = min;
            return true;
        }
        return false;
    }

    void resetHighWatermark(long value) {
        highWatermark = value;
    }

    @Override
    public String toString() {
        return topicPartition + "[leader=" + leader + ", epoch=" + leaderEpoch + ", isr=" + isr + ", hw=" + highWatermark + "]";
    }
}
