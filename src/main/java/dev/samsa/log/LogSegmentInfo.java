package dev.samsa.log;

/**
 * What the log cleaner needs to know of one segment without reading it: its offsets, its size, the largest timestamp
 * (min.compaction.lag.ms) and the first batch's timestamp (max.compaction.lag.ms), as Kafka's LogCleanerManager reads
 * them off its segments. {@code firstBatchTimestamp} is -1 for an empty segment.
 */
public record LogSegmentInfo(long baseOffset, long nextOffset, long sizeInBytes, long largestTimestamp,
                             long firstBatchTimestamp) {
}
