package dev.samsa.log.cleaner;

/**
 * The topic configs the log cleaner obeys, named as Kafka's: {@code min.cleanable.dirty.ratio},
 * {@code min.compaction.lag.ms}, {@code max.compaction.lag.ms}, {@code delete.retention.ms}, and
 * {@code segment.bytes}, which bounds a group of cleaned segments.
 */
public record CompactionConfig(double minCleanableRatio, long minCompactionLagMs, long maxCompactionLagMs,
                               long deleteRetentionMs, int segmentBytes) {
}
