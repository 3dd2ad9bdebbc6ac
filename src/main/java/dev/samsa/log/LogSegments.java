package dev.samsa.log;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * The segments of one partition log ordered by base offset, as Kafka's {@code LogSegments}, and the surgery on them
 * that retention, truncation and recovery do: which segments hold which offsets, and deleting whole segments from
 * either end. The last segment is the active one, that appends go to.
 *
 * <p>This class is not thread-safe: the cluster loop owns the log, so a {@link TreeMap} does where Kafka needs a
 * concurrent map.
 */
final class LogSegments {

    private final TreeMap<Long, LogSegment> segments = new TreeMap<>();

    boolean isEmpty() {
        return segments.isEmpty();
    }

    /** Adds a segment after the others; it becomes the active segment. */
    void add(LogSegment segment) {
        if (!segments.isEmpty() && segment.baseOffset() <= segments.lastKey()) {
            throw new IllegalArgumentException("Segment " + segment + " does not come after the active segment "
                    + segments.lastEntry().getValue());
        }
        segments.put(segment.baseOffset(), segment);
    }

    /**
     * Checks that {@code oldBaseOffsets} are consecutive segments starting at {@code baseOffset}, none of them the
     * active one: what a cleaned segment may replace.
     */
    void checkReplaceable(long baseOffset, List<Long> oldBaseOffsets) {
        List<Long> expected = new ArrayList<>(segments.tailMap(baseOffset).keySet())
                .subList(0, Math.min(oldBaseOffsets.size(), segments.tailMap(baseOffset).size()));
        if (oldBaseOffsets.isEmpty() || !expected.equals(oldBaseOffsets) || oldBaseOffsets.contains(segments.lastKey())) {
            throw new IllegalArgumentException("Cannot replace segments " + oldBaseOffsets + " from offset " + baseOffset
                    + " in " + segments.keySet() + ": they must be consecutive and not the active segment");
        }
    }

    /** Removes the segments based at {@code baseOffsets} and deletes their files. */
    void remove(List<Long> baseOffsets) throws IOException {
        for (long baseOffset : baseOffsets) {
            LogSegment segment = segments.remove(baseOffset);
            if (segment != null) {
                segment.deleteFiles();
            }
        }
    }

    /** Puts a segment where its base offset belongs, such as a cleaned one among the others. */
    void insert(LogSegment segment) {
        if (segments.containsKey(segment.baseOffset())) {
            throw new IllegalArgumentException("A segment at offset " + segment.baseOffset() + " is already there");
        }
        segments.put(segment.baseOffset(), segment);
    }

    /** Base offsets, oldest first. */
    List<Long> baseOffsets() {
        return new ArrayList<>(segments.keySet());
    }

    OptionalLong firstSegmentBaseOffset() {
        return segments.isEmpty() ? OptionalLong.empty() : OptionalLong.of(segments.firstKey());
    }

    Optional<LogSegment> lastSegment() {
        return Optional.ofNullable(segments.lastEntry()).map(Map.Entry::getValue);
    }

    /** The segment appends go to. A loaded log always has one. */
    LogSegment activeSegment() {
        if (segments.isEmpty()) {
            throw new IllegalStateException("A log has no segments");
        }
        return segments.lastEntry().getValue();
    }

    /** Every segment, oldest first. */
    Collection<LogSegment> values() {
        return Collections.unmodifiableCollection(segments.values());
    }

    /**
     * The segments that may hold offsets in {@code [from, to)}, oldest first: from the one whose base offset is the
     * greatest at or below {@code from} (or the first, if {@code from} is below every base offset) up to those based
     * below {@code to}.
     */
    Collection<LogSegment> values(long from, long to) {
        if (to < from) {
            throw new IllegalArgumentException("Invalid offset range: from " + from + " to " + to);
        }
        if (from == to) {
            return List.of();
        }
        Long floor = segments.floorKey(from);
        return Collections.unmodifiableCollection(
                floor == null ? segments.headMap(to).values() : segments.subMap(floor, to).values());
    }

    /** Bytes of data in all segments. */
    long sizeInBytes() {
        long total = 0;
        for (LogSegment segment : segments.values()) {
            total += segment.size();
        }
        return total;
    }

    /**
     * Deletes the oldest segments while every offset they hold is below {@code offset}, that is while the next
     * segment starts at or below it: what a raised log start offset lets go. The active segment always stays.
     */
    void deleteSegmentsBelow(long offset) throws IOException {
        while (segments.size() > 1 && segments.higherKey(segments.firstKey()) <= offset) {
            segments.pollFirstEntry().getValue().deleteFiles();
        }
    }

    /**
     * Drops every batch that holds an offset at or after {@code offset}: deletes the segments based above it and
     * truncates the one that becomes active, which never cuts a batch.
     *
     * @throws IllegalArgumentException if {@code offset} is below the first base offset, where nothing would remain
     *         to append to; empty the log with {@link #deleteAll()} instead
     */
    void truncateTo(long offset, int indexIntervalBytes) throws IOException {
        if (segments.isEmpty() || offset < segments.firstKey()) {
            throw new IllegalArgumentException("Cannot truncate to offset " + offset + " below the first segment, "
                    + segments.keySet());
        }
        while (segments.lastKey() > offset) {
            segments.pollLastEntry().getValue().deleteFiles();
        }
        segments.lastEntry().getValue().truncateTo(offset, indexIntervalBytes);
    }

    /** Deletes every segment's files and leaves the set empty, for a log that starts again elsewhere. */
    void deleteAll() throws IOException {
        while (!segments.isEmpty()) {
            segments.pollFirstEntry().getValue().deleteFiles();
        }
    }

    /** Closes every segment, even if one fails; the first failure is thrown with the others suppressed. */
    void close() throws IOException {
        IOException failure = null;
        for (LogSegment segment : segments.values()) {
            try {
                segment.close();
            } catch (IOException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public String toString() {
        return "LogSegments(" + segments.values() + ")";
    }
}
