package dev.samsa.cluster;

import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.MemoryRecords;

/**
 * What a fetch read from one partition, as Kafka's {@code LogReadResult}: whole batches from the one holding the fetch
 * offset, and the leader's high watermark, last stable offset and log start offset. Those three are -1 when the
 * partition never got to answer (unknown, not led here, fenced epoch); an offset out of range carries them with its
 * error, as Kafka's does.
 */
public record LogReadResult(MemoryRecords records, long highWatermark, long lastStableOffset, long logStartOffset,
                            Errors error) {

    static LogReadResult error(Errors error) {
        return new LogReadResult(MemoryRecords.EMPTY, -1, -1, -1, error);
    }

    /** Whether the leader answered for the partition (its offsets are known), with or without an error. */
    public boolean hasLeaderOffsets() {
        return highWatermark >= 0;
    }
}
