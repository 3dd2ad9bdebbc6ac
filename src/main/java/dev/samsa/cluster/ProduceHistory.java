package dev.samsa.cluster;

import dev.samsa.event.RecordsAcknowledged;
import dev.samsa.event.Timeline;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * Every batch a leader acknowledged to a producer (acks=1 once appended, acks=all once the high watermark passed it),
 * kept so that a test can check them against the logs as they end up. Bounded: past its capacity it drops the oldest
 * half and counts them. Each acknowledgement also fires the triggers waiting for a partition's acknowledged count
 * ({@link RecordsAcknowledged}). Loop-owned, like the rest of the cluster state.
 */
public final class ProduceHistory {

    /** Batches kept by default: about 100 bytes each, so at most about 100 MiB for a very long run. */
    public static final int DEFAULT_CAPACITY = 1_000_000;

    /**
     * One acknowledged batch: its offsets as the leader assigned them, who wrote it, and its CRC (which does not cover
     * the offsets), so that a batch at the same offsets after a failure can be told apart from it.
     */
    public record AckedBatch(TopicPartition partition, long baseOffset, long lastOffset, long producerId,
            short producerEpoch, int baseSequence, long checksum, short acks, int leader, long timeMs) {
    }

    private final int capacity;
    private final Timeline timeline;
    private boolean enabled = true;
    private List<AckedBatch> acked = new ArrayList<>();
    private long dropped;
    /** Records acknowledged per partition, counted even with the history off: triggers wait for counts. */
    private final Map<TopicPartition, Long> acknowledgedRecords = new HashMap<>();

    public ProduceHistory(int capacity, Timeline timeline) {
        this.capacity = capacity;
        this.timeline = timeline;
    }

    public void enabled(boolean enabled) {
        this.enabled = enabled;
    }

    public boolean enabled() {
        return enabled;
    }

    /**
     * The batches of one partition's produce, as they will be acknowledged: {@code firstOffset} is the offset the
     * leader gave the first of them.
     */
    public List<AckedBatch> appended(TopicPartition tp, MemoryRecords records, long firstOffset, short acks, int leader,
            long nowMs) {
        List<AckedBatch> batches = new ArrayList<>();
        long offset = firstOffset;
        for (RecordBatch b : records.batches()) {
            long count = b.lastOffset() - b.baseOffset() + 1;
            batches.add(new AckedBatch(tp, offset, offset + count - 1, b.producerId(), b.producerEpoch(), b.baseSequence(),
                    b.checksum(), acks, leader, nowMs));
            offset += count;
        }
        return batches;
    }

    /**
     * The leader answered success for {@code batches} (all of one partition): records them, counts them and fires the
     * triggers waiting for the partition's count. A crash right after the answer can keep it from the producer (as a
     * real broker's crash resets its connections): the history still counts what the broker answered.
     */
    public void acknowledged(List<AckedBatch> batches) {
        if (batches.isEmpty()) {
            return;
        }
        TopicPartition tp = batches.get(0).partition();
        long count = acknowledgedRecords.merge(tp,
                batches.stream().mapToLong(b -> b.lastOffset() - b.baseOffset() + 1).sum(), Long::sum);
        timeline.signal(new RecordsAcknowledged(tp.topic(), tp.partition(), count));
        if (!enabled) {
            return;
        }
        if (acked.size() + batches.size() > capacity) {
            int drop = acked.size() / 2;
            acked = new ArrayList<>(acked.subList(drop, acked.size()));
            dropped += drop;
        }
        acked.addAll(batches);
    }

    public List<AckedBatch> acknowledged() {
        return List.copyOf(acked);
    }

    /** How many of the oldest acknowledged batches were dropped to stay within the capacity. */
    public long dropped() {
        return dropped;
    }
}
