package dev.samsa.cluster;

import dev.samsa.log.PartitionLog;
import java.util.List;
import org.apache.kafka.common.TopicPartition;

/**
 * One partition: its replicas, leader, leader epoch and ISR, and the log of each replica. With one replica the high
 * watermark is the leader's log end offset; replication moves it otherwise. Owned by the cluster loop.
 */
public final class Partition {

    private final Topic topic;
    private final int index;
    private final TopicPartition topicPartition;
    private final List<Integer> replicas;
    private final java.util.Map<Integer, PartitionLog> logs = new java.util.HashMap<>();
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

    public List<Integer> replicas() {
        return replicas;
    }

    public int leader() {
        return leader;
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

    public PartitionLog log(int brokerId) {
        return logs.get(brokerId);
    }

    public PartitionLog leaderLog() {
        return logs.get(leader);
    }

    void attachLog(int brokerId, PartitionLog log) {
        logs.put(brokerId, log);
    }

    java.util.Collection<PartitionLog> logs() {
        return logs.values();
    }

    /** Recomputes the high watermark as the smallest log end offset of the ISR; returns true if it moved. */
    boolean maybeAdvanceHighWatermark() {
        long min = Long.MAX_VALUE;
        for (int replica : isr) {
            PartitionLog log = logs.get(replica);
            if (log != null) {
                min = Math.min(min, log.logEndOffset());
            }
        }
        if (min != Long.MAX_VALUE && min > highWatermark) {
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
