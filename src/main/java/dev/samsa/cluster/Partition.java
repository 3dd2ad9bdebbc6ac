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
 * the ISR, each follower's as the leader learned it from that follower's fetches in the current epoch (never from the
 * follower's log), and never goes back while a leader stays.
 *
 * <p>During a reassignment, as in KRaft's PartitionRegistration, the replicas are the target followed by the replicas
 * being removed; adding and removing replicas are listed apart, and both lists are empty otherwise.
 */
public final class Partition {

    /**
     * What the leader knows of one follower, as Kafka's {@code Replica} keeps it: learned only from that follower's
     * fetches in the current leader epoch and forgotten when the epoch changes ({@code Replica.resetReplicaState}).
     * The leader never reads a follower's log: a follower that is paused or cut off, whatever its log holds, has
     * replicated nothing it has not fetched in this epoch.
     */
    static final class FollowerState {
        static final long UNKNOWN_OFFSET = -1;

        /** The offset of its latest fetch: it holds the leader's records below it. */
        long logEndOffset = UNKNOWN_OFFSET;
        long logStartOffset = UNKNOWN_OFFSET;
        /** The leader's log end offset and the cluster time at its latest fetch. */
        long lastFetchLeaderLogEndOffset = UNKNOWN_OFFSET;
        long lastFetchMs;
        /** Cluster time at which this follower last had everything the leader had. */
        long lastCaughtUpMs;
        /**
         * Follower-side: the leader epoch this follower has reconciled its log with (truncation by
         * OffsetForLeaderEpoch). Kept here because the follower's fetcher is in-process; the leader never reads it.
         */
        int reconciledEpoch = -1;

        /** A fetch from {@code fetchOffset} reached the leader, whose log ended at {@code leaderEndOffset}. */
        void updateFetchState(long fetchOffset, long followerLogStartOffset, long leaderEndOffset, long nowMs) {
            if (fetchOffset >= leaderEndOffset) {
                lastCaughtUpMs = Math.max(lastCaughtUpMs, nowMs);
            } else if (lastFetchLeaderLogEndOffset != UNKNOWN_OFFSET && fetchOffset >= lastFetchLeaderLogEndOffset) {
                // It has now what the leader had at its previous fetch: it was caught up then.
                lastCaughtUpMs = Math.max(lastCaughtUpMs, lastFetchMs);
            }
            logEndOffset = fetchOffset;
            logStartOffset = followerLogStartOffset;
            lastFetchLeaderLogEndOffset = leaderEndOffset;
            lastFetchMs = nowMs;
        }

        /**
         * A new leader epoch: what the previous one learned no longer holds. An in-sync follower counts as caught up
         * now, so that it has replica.lag.time.max.ms to fetch before it is dropped; one out of sync as never.
         */
        void reset(boolean inSync, long nowMs) {
            logEndOffset = UNKNOWN_OFFSET;
            logStartOffset = UNKNOWN_OFFSET;
            lastFetchLeaderLogEndOffset = UNKNOWN_OFFSET;
            lastFetchMs = 0;
            lastCaughtUpMs = inSync ? nowMs : 0;
        }

        boolean isCaughtUp(long leaderEndOffset) {
            return logEndOffset >= leaderEndOffset;
        }
    }

    private final Topic topic;
    private final int index;
    private final TopicPartition topicPartition;
    private List<Integer> replicas;
    private List<Integer> addingReplicas = List.of();
    private List<Integer> removingReplicas = List.of();
    private final Map<Integer, PartitionLog> logs = new HashMap<>();
    private final Map<Integer, FollowerState> followers = new HashMap<>();
    /** Timer keys, built once: an acks=all append arms and a replica fetch cancels one per follower. */
    private final Map<Integer, String> lagTimerKeys = new HashMap<>();
    private String replicationTaskKey;
    private int leader;
    /** -1 until the first {@link #setLeader}, so that the first leader starts every follower's state afresh too. */
    private int leaderEpoch = -1;
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

    /** The key of {@code follower}'s replica.lag.time.max.ms timer ({@link ReplicaManager#scheduleLagCheck}). */
    String lagTimerKey(int follower) {
        return lagTimerKeys.computeIfAbsent(follower, f -> "isr-lag-" + topicPartition + "-" + f);
    }

    /** The key of the task that lets the followers catch up after an append ({@link ReplicaFetcher#replicateSoon}). */
    String replicationTaskKey() {
        if (replicationTaskKey == null) {
            replicationTaskKey = "replicate-" + topicPartition;
        }
        return replicationTaskKey;
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

    /** Returns whether {@code brokerId} believed it led: it no longer does. */
    boolean forgetStaleLeadership(int brokerId) {
        return staleLeaders.remove(brokerId) != null;
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

    /**
     * Kafka's last stable offset as {@code brokerId} serves it: the first offset of the oldest transaction its log has
     * not seen decided and replicated, else its high watermark. What read_committed consumers read up to.
     */
    public long lastStableOffsetSeenBy(int brokerId) {
        PartitionLog log = logs.get(brokerId);
        long highWatermark = highWatermarkSeenBy(brokerId);
        return log == null ? highWatermark : log.lastStableOffset(highWatermark);
    }

    public List<Integer> isrSeenBy(int brokerId) {
        StaleLeadership stale = leader == brokerId ? null : staleLeaders.get(brokerId);
        return stale == null ? isr : stale.isr();
    }

    /** The log of the replica on {@code brokerId}, or null while that broker is down. */
    public PartitionLog log(int brokerId) {
        return logs.get(brokerId);
    }

    /** Whether {@code brokerId} hosts a replica whose log is open (its broker is up). */
    public boolean hostsLog(int brokerId) {
        return logs.containsKey(brokerId);
    }

    /**
     * What DescribeLogDirs reports of the replica on {@code brokerId}, whose log must be open: the bytes of its segments,
     * and its offset lag, the high watermark it knows less its log end offset, at least 0 (Kafka's getLogEndOffsetLag).
     */
    public long logSizeInBytes(int brokerId) {
        return logs.get(brokerId).sizeInBytes();
    }

    public long offsetLag(int brokerId) {
        return Math.max(highWatermarkSeenBy(brokerId) - logs.get(brokerId).logEndOffset(), 0);
    }

    /** Replicas whose broker is down (no log attached), in replica order: Metadata's offline replicas. */
    public List<Integer> offlineReplicas() {
        return replicas().stream().filter(r -> !logs.containsKey(r)).toList();
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

    /** Every replica's log, no longer attached: the cluster is closing. */
    List<PartitionLog> detachLogs() {
        List<PartitionLog> detached = List.copyOf(logs.values());
        logs.clear();
        return detached;
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

    /** A leader and epoch; a new epoch forgets every follower's state, which its fetches in that epoch rebuild. */
    void setLeader(int leader, int leaderEpoch, long nowMs) {
        boolean newEpoch = leaderEpoch != this.leaderEpoch;
        this.leader = leader;
        this.leaderEpoch = leaderEpoch;
        if (newEpoch) {
            followers.forEach((broker, state) -> state.reset(isr.contains(broker), nowMs));
        }
    }

    void setIsr(List<Integer> isr) {
        this.isr = List.copyOf(isr);
    }

    /** The leader learns of a fetch by {@code follower}; the fetch offset is all it knows of that follower's log. */
    void updateFollowerFetchState(int follower, long fetchOffset, long followerLogStartOffset, long nowMs) {
        followers.get(follower).updateFetchState(fetchOffset, followerLogStartOffset, leaderLog().logEndOffset(), nowMs);
    }

    /**
     * A follower that has everything and is still fetching at {@code nowMs} is caught up then. Kafka's followers fetch
     * continuously, so their leader sees this all the time; Samsa's fetch only when there is something to fetch, so
     * the leader is told at the moments it matters: before an append leaves the follower behind, and when it stops.
     */
    void followerCaughtUpAt(int follower, long nowMs) {
        if (isFollowerCaughtUp(follower)) {
            FollowerState state = followers.get(follower);
            state.lastCaughtUpMs = Math.max(state.lastCaughtUpMs, nowMs);
        }
    }

    /** Whether the leader knows {@code follower} to have everything it has (a fetch at its log end offset). */
    boolean isFollowerCaughtUp(int follower) {
        PartitionLog leaderLog = leaderLog();
        return leaderLog != null && followers.get(follower).isCaughtUp(leaderLog.logEndOffset());
    }

    /**
     * Recomputes the high watermark as the smallest log end offset of the ISR, each follower's as its fetches in this
     * epoch told the leader (a follower that has not fetched yet holds it back); returns true if it moved.
     */
    boolean maybeAdvanceHighWatermark() {
        PartitionLog leaderLog = leaderLog();
        if (leaderLog == null) {
            return false;
        }
        long min = leaderLog.logEndOffset();
        for (int replica : isr) {
            if (replica != leader) {
                min = Math.min(min, followers.get(replica).logEndOffset);
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
