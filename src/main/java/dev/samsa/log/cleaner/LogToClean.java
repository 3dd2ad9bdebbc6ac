package dev.samsa.log.cleaner;

import java.util.ArrayList;
import java.util.List;

import dev.samsa.log.LogSegmentInfo;
import dev.samsa.log.PartitionLog;

/**
 * The part of one log a cleaning pass may rewrite, as Kafka's {@code LogToClean} with
 * {@code LogCleanerManager.cleanableOffsets}: dirty from {@code firstDirtyOffset} (the cleaner's checkpoint) up to
 * {@code firstUncleanableOffset}, which is never past the last stable offset, the active segment or the first segment
 * with a record newer than min.compaction.lag.ms.
 *
 * @param needCompactionNow whether a dirty record is older than max.compaction.lag.ms, which cleans the log whatever
 *        its dirty ratio
 */
public record LogToClean(long firstDirtyOffset, long firstUncleanableOffset, long cleanBytes, long cleanableBytes,
                         boolean needCompactionNow) {

    /** Dirty bytes over all bytes up to the first uncleanable segment; 0 for an empty log. */
    public double cleanableRatio() {
        long total = cleanBytes + cleanableBytes;
        return total == 0 ? 0.0 : (double) cleanableBytes / total;
    }

    /** Kafka's test in grabFilthiestCompactedLog: the ratio is above min.cleanable.dirty.ratio, or a dirty record is too old. */
    public boolean shouldClean(CompactionConfig config) {
        return (needCompactionNow && cleanableBytes > 0) || cleanableRatio() > config.minCleanableRatio();
    }

    /**
     * The cleanable part as the background cleaner sees it at {@code nowMs}.
     *
     * @param checkpoint the offset the last pass cleaned up to, or -1 if there was none
     */
    public static LogToClean of(PartitionLog log, long checkpoint, long lastStableOffset, CompactionConfig config,
                                long nowMs) {
        List<LogSegmentInfo> segments = log.segmentInfos();
        long firstDirty = checkpoint < log.logStartOffset() || checkpoint > log.logEndOffset()
                ? log.logStartOffset() : checkpoint;
        List<LogSegmentInfo> dirtyNonActive = nonActiveFrom(segments, firstDirty);
        long firstUncleanable = Math.min(lastStableOffset, segments.get(segments.size() - 1).baseOffset());
        if (config.minCompactionLagMs() > 0) {
            for (LogSegmentInfo segment : dirtyNonActive) {
                if (segment.largestTimestamp() > nowMs - config.minCompactionLagMs()) {
                    firstUncleanable = Math.min(firstUncleanable, segment.baseOffset());
                    break;
                }
            }
        }
        firstUncleanable = Math.max(firstDirty, firstUncleanable);
        long earliestDirty = dirtyNonActive.stream().mapToLong(LogSegmentInfo::firstBatchTimestamp)
                .filter(t -> t > 0).min().orElse(Long.MAX_VALUE);
        boolean needNow = earliestDirty < nowMs - Math.max(config.maxCompactionLagMs(), 0L);
        return measure(segments, firstDirty, firstUncleanable, needNow);
    }

    /**
     * A full pass, as {@code cluster.compact} asks: everything from the log start up to the last stable offset or the
     * active segment, whatever the ratio and the lags.
     */
    public static LogToClean full(PartitionLog log, long lastStableOffset) {
        List<LogSegmentInfo> segments = log.segmentInfos();
        long firstUncleanable = Math.max(log.logStartOffset(),
                Math.min(lastStableOffset, segments.get(segments.size() - 1).baseOffset()));
        return measure(segments, log.logStartOffset(), firstUncleanable, true);
    }

    /** Kafka's calculateCleanableBytes, counting whole segments. */
    private static LogToClean measure(List<LogSegmentInfo> segments, long firstDirty, long firstUncleanable,
                                      boolean needNow) {
        List<LogSegmentInfo> uncleanable = nonActiveFrom(segments, firstUncleanable);
        long firstUncleanableSegment = uncleanable.isEmpty() ? segments.get(segments.size() - 1).baseOffset()
                : uncleanable.get(0).baseOffset();
        long cleanBytes = segments.stream().filter(s -> s.baseOffset() < firstDirty)
                .mapToLong(LogSegmentInfo::sizeInBytes).sum();
        long cleanableBytes = between(segments, Math.min(firstDirty, firstUncleanableSegment), firstUncleanableSegment)
                .stream().mapToLong(LogSegmentInfo::sizeInBytes).sum();
        return new LogToClean(firstDirty, firstUncleanable, cleanBytes, cleanableBytes, needNow);
    }

    /** The segments that may hold offsets in {@code [from, to)}, as Kafka's logSegments(from, to). */
    static List<LogSegmentInfo> between(List<LogSegmentInfo> segments, long from, long to) {
        List<LogSegmentInfo> out = new ArrayList<>();
        for (int i = 0; i < segments.size(); i++) {
            LogSegmentInfo segment = segments.get(i);
            boolean holdsFrom = i + 1 == segments.size() || segments.get(i + 1).baseOffset() > from;
            if (segment.baseOffset() < to && holdsFrom && from < to) {
                out.add(segment);
            }
        }
        return out;
    }

    /** Kafka's nonActiveLogSegmentsFrom: from the segment holding {@code offset} up to the active one, excluded. */
    private static List<LogSegmentInfo> nonActiveFrom(List<LogSegmentInfo> segments, long offset) {
        return between(segments, offset, segments.get(segments.size() - 1).baseOffset());
    }
}
