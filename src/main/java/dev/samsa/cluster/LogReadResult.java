package dev.samsa.cluster;

import java.util.List;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Records;

/**
 * What a fetch read from one partition, as Kafka's {@code LogReadResult}: whole batches from the one holding the fetch
 * offset, and the leader's high watermark, last stable offset and log start offset. Those three are -1 when the
 * partition never got to answer (unknown, not led here, fenced epoch); an offset out of range carries them with its
 * error, as Kafka's does. A READ_COMMITTED read that succeeded lists the aborted transactions overlapping its batches
 * (possibly none); otherwise {@code abortedTransactions} is null, as Kafka sends it.
 *
 * <p>The records are seen in place in the leader's segment ({@code MappedRecords}, which are {@link AutoCloseable}):
 * whoever ends up with them closes them once sent or dropped.
 */
public record LogReadResult(Records records, long highWatermark, long lastStableOffset, long logStartOffset,
                            Errors error, List<AbortedTransaction> abortedTransactions) {

    /** A transaction of {@code producerId} from {@code firstOffset} on whose records a read_committed consumer drops. */
    public record AbortedTransaction(long producerId, long firstOffset) {
    }

    LogReadResult(Records records, long highWatermark, long lastStableOffset, long logStartOffset, Errors error) {
        this(records, highWatermark, lastStableOffset, logStartOffset, error, null);
    }

    static LogReadResult error(Errors error) {
        return new LogReadResult(MemoryRecords.EMPTY, -1, -1, -1, error);
    }

    /** Whether the leader answered for the partition (its offsets are known), with or without an error. */
    public boolean hasLeaderOffsets() {
        return highWatermark >= 0;
    }
}
