package dev.samsa;

import dev.samsa.cluster.ClusterState;
import dev.samsa.cluster.Partition;
import dev.samsa.log.PartitionLog;
import dev.samsa.time.ClusterLoop;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.internals.ByteBufferOutputStream;

/**
 * A live view of one partition: every call reads the cluster's state at that moment (on the cluster loop).
 */
public final class PartitionView {

    private final ClusterLoop loop;
    private final ClusterState state;
    private final String topic;
    private final int partition;

    PartitionView(ClusterLoop loop, ClusterState state, String topic, int partition) {
        this.loop = loop;
        this.state = state;
        this.topic = topic;
        this.partition = partition;
    }

    private <T> T read(Function<Partition, T> f) {
        return loop.call(() -> {
            Partition p = state.metadata().partition(new TopicPartition(topic, partition));
            if (p == null) {
                throw new IllegalArgumentException("No partition " + topic + "-" + partition + " in this cluster");
            }
            return f.apply(p);
        });
    }

    /** The leader's broker id, or -1 while the partition is offline. */
    public int leader() {
        return read(Partition::leader);
    }

    public int leaderEpoch() {
        return read(Partition::leaderEpoch);
    }

    public List<Integer> replicas() {
        return read(Partition::replicas);
    }

    public List<Integer> isr() {
        return read(Partition::isr);
    }

    public long highWatermark() {
        return read(Partition::highWatermark);
    }

    /**
     * The high watermark as the replica on {@code brokerId} serves it: the leader's, except on a stale leader (a broker
     * isolated from the others, {@link Broker#isolateFromBrokers()}), where it stays where it was when it was cut off.
     */
    public long highWatermark(int brokerId) {
        return read(p -> p.highWatermarkSeenBy(brokerId));
    }

    /**
     * The leader's last stable offset: the first offset of the oldest transaction not yet committed or aborted (or
     * whose marker is not yet replicated), else the high watermark. Read_committed consumers read up to it.
     */
    public long lastStableOffset() {
        return read(p -> p.lastStableOffsetSeenBy(p.leader()));
    }

    /**
     * The log end offset of the replica on {@code brokerId}.
     *
     * @throws IllegalStateException while that broker is down
     */
    public long logEndOffset(int brokerId) {
        return read(p -> {
            PartitionLog log = p.log(brokerId);
            if (log == null) {
                throw new IllegalStateException("Broker " + brokerId + " has no open replica of " + topic + "-" + partition
                        + (p.replicas().contains(brokerId) ? " (it is down)" : " (not a replica; replicas are " + p.replicas() + ")"));
            }
            return log.logEndOffset();
        });
    }

    public long logStartOffset(int brokerId) {
        return read(p -> p.log(brokerId) == null ? -1L : p.log(brokerId).logStartOffset());
    }

    /**
     * Every batch the replica on {@code brokerId} holds, from its log start to its log end, whatever the high
     * watermark: for tests that check replicas agree, byte for byte.
     *
     * @throws IllegalStateException while that broker is down
     */
    public List<ReplicaBatch> batches(int brokerId) {
        return read(p -> {
            PartitionLog log = p.log(brokerId);
            if (log == null) {
                throw new IllegalStateException("Broker " + brokerId + " has no open replica of " + topic + "-" + partition);
            }
            List<ReplicaBatch> out = new ArrayList<>();
            log.forEachBatch(batch -> {
                ByteBufferOutputStream bytes = new ByteBufferOutputStream(batch.sizeInBytes());
                batch.writeTo(bytes);
                CRC32 crc = new CRC32();
                crc.update(bytes.buffer().flip());
                out.add(new ReplicaBatch(batch.baseOffset(), batch.lastOffset(), batch.partitionLeaderEpoch(), crc.getValue()));
            });
            return out;
        });
    }

    @Override
    public String toString() {
        return read(Partition::toString);
    }
}
