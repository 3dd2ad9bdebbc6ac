package dev.samsa.log;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import dev.samsa.log.store.MappedStoreFactory;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Records;

/**
 * The segments of one partition replica and their files, as Kafka's {@code LocalLog}: reading and appending
 * records, rolling, flushing, truncating and deleting segments, and swapping cleaned ones in. What the records mean
 * (offsets a leader assigns, producer state, leader epochs, the log start offset) is {@link PartitionLog}'s.
 *
 * <p>The flushed offset is Kafka's recovery point: what a power loss keeps.
 *
 * <p>A storage failure surfaces as {@link KafkaStorageException} naming the directory. The steps of a larger
 * change of {@link PartitionLog} (truncation, deleting from the start) throw {@link IOException} instead, for it to
 * name the whole change.
 *
 * <p>Not thread-safe: the cluster loop owns the log.
 */
final class LocalLog implements AutoCloseable {

    private final Path dir;
    private final MappedStoreFactory stores;
    private final LogSegments segments;
    private LogConfig config;
    private long flushedOffset;
    private long lastFlushMs;
    private boolean closed;

    LocalLog(Path dir, LogConfig config, MappedStoreFactory stores, LogSegments segments, long nowMs) {
        this.dir = dir;
        this.config = config;
        this.stores = stores;
        this.segments = segments;
        // What recovery found is what the next power loss keeps, as Kafka's recovery point.
        this.flushedOffset = logEndOffset();
        this.lastFlushMs = nowMs;
    }

    Path dir() {
        return dir;
    }

    LogConfig config() {
        return config;
    }

    void updateConfig(LogConfig config) {
        this.config = config;
    }

    /** Every segment, for the walks {@link PartitionLog} makes over records it gives a meaning to. */
    LogSegments segments() {
        return segments;
    }

    long logEndOffset() {
        return segments.activeSegment().nextOffset();
    }

    long flushedOffset() {
        return flushedOffset;
    }

    long unflushedMessages() {
        return logEndOffset() - flushedOffset;
    }

    long lastFlushMs() {
        return lastFlushMs;
    }

    /** See {@link PartitionLog#read}; the caller has checked that {@code fetchOffset} is within the log. */
    LogReadInfo read(long fetchOffset, int maxBytes, long maxOffsetExclusive, boolean minOneBatch) {
        return readFirstSegment(fetchOffset, LogReadInfo.EMPTY,
                segment -> segment.read(fetchOffset, maxBytes, maxOffsetExclusive, minOneBatch).map(LogReadInfo::new));
    }

    /** See {@link PartitionLog#readMapped}; the caller has checked that {@code fetchOffset} is within the log. */
    Records readMapped(long fetchOffset, int maxBytes, long maxOffsetExclusive, boolean minOneBatch) {
        return readFirstSegment(fetchOffset, MemoryRecords.EMPTY,
                segment -> segment.readMapped(fetchOffset, maxBytes, maxOffsetExclusive, minOneBatch));
    }

    /** A segment's read of whole batches from {@code fetchOffset}, empty when the segment holds none to return. */
    private interface SegmentRead<R> {
        Optional<R> from(LogSegment segment) throws IOException;
    }

    /** The first segment from {@code fetchOffset} on that has batches to return, or {@code empty} at the log end. */
    private <R> R readFirstSegment(long fetchOffset, R empty, SegmentRead<R> read) {
        checkOpen();
        long logEndOffset = logEndOffset();
        if (fetchOffset == logEndOffset) {
            return empty;
        }
        try {
            for (LogSegment segment : segments.values(fetchOffset, logEndOffset)) {
                Optional<R> records = read.from(segment);
                if (records.isPresent()) {
                    return records.get();
                }
            }
            return empty;
        } catch (IOException e) {
            throw storageError("read offset " + fetchOffset, e);
        }
    }

    /** See {@link PartitionLog#collectAbortedTransactions}. */
    List<AbortedTxn> collectAbortedTransactions(long fetchOffset, long upperBoundOffset) {
        checkOpen();
        List<AbortedTxn> out = new ArrayList<>();
        for (LogSegment segment : segments.values(fetchOffset, Long.MAX_VALUE)) {
            if (segment.collectAbortedTxns(fetchOffset, upperBoundOffset, out)) {
                break;
            }
        }
        return out;
    }

    /** The aborted transactions indexed in each segment, oldest segment first. */
    List<List<AbortedTxn>> abortedTxnsBySegment() {
        return segments.values().stream().map(LogSegment::abortedTxns).toList();
    }

    /** See {@link PartitionLog#offsetForTimestamp}. */
    Optional<TimestampAndOffset> offsetForTimestamp(long timestamp, long logStartOffset) {
        checkOpen();
        try {
            for (LogSegment segment : segments.values()) {
                Optional<TimestampAndOffset> found = segment.findOffsetByTimestamp(timestamp, logStartOffset);
                if (found.isPresent()) {
                    return found;
                }
            }
            return Optional.empty();
        } catch (IOException e) {
            throw storageError("search timestamp " + timestamp, e);
        }
    }

    /** See {@link PartitionLog#maxTimestamp}. */
    TimestampAndOffset maxTimestamp() {
        checkOpen();
        LogSegment latest = null;
        for (LogSegment segment : segments.values()) {
            if (segment.size() > 0 && (latest == null || segment.maxTimestampSoFar() > latest.maxTimestampSoFar())) {
                latest = segment;
            }
        }
        try {
            return latest == null ? TimestampAndOffset.NONE : latest.maxTimestampRecord().orElse(TimestampAndOffset.NONE);
        } catch (IOException e) {
            throw storageError("find the largest timestamp", e);
        }
    }

    /** Every segment, oldest first; the last is the active one. */
    List<LogSegmentInfo> segmentInfos() {
        checkOpen();
        List<LogSegmentInfo> out = new ArrayList<>();
        try {
            for (LogSegment segment : segments.values()) {
                out.add(new LogSegmentInfo(segment.baseOffset(), segment.nextOffset(), segment.size(),
                        segment.maxTimestampSoFar(), segment.firstBatchTimestamp()));
            }
        } catch (IOException e) {
            throw storageError("read the first batch of a segment", e);
        }
        return out;
    }

    /** Base offsets of the segments, oldest first. */
    List<Long> segmentBaseOffsets() {
        return segments.baseOffsets();
    }

    /**
     * Appends batches whose offsets are assigned, {@code firstOffset} to {@code lastOffset}, to the active segment,
     * after rolling a new one at {@code firstOffset} if segment.bytes, segment.ms or a full index asks for it.
     */
    void append(Records records, long firstOffset, long lastOffset, long nowMs) {
        try {
            LogSegment active = segments.activeSegment();
            if (active.shouldRoll(config, records.sizeInBytes(), lastOffset, nowMs)) {
                active = LogSegment.open(dir, firstOffset, stores);
                segments.add(active);
            }
            active.append(records, config.indexIntervalBytes(), nowMs);
        } catch (IOException e) {
            throw storageError("append offsets " + firstOffset + ".." + lastOffset, e);
        }
    }

    /** See {@link PartitionLog#prepareFilesInBackground()}. */
    void prepareFilesInBackground() {
        checkOpen();
        segments.activeSegment().prepareFiles();
    }

    /** See {@link PartitionLog#roll}. */
    void roll() {
        checkOpen();
        if (segments.activeSegment().size() == 0) {
            return;
        }
        try {
            segments.add(LogSegment.open(dir, logEndOffset(), stores));
        } catch (IOException e) {
            throw storageError("roll a segment at offset " + logEndOffset(), e);
        }
    }

    /** See {@link PartitionLog#flush}. */
    void flush(long nowMs) {
        checkOpen();
        try {
            for (LogSegment segment : segments.values(flushedOffset, Long.MAX_VALUE)) {
                segment.flush();
            }
        } catch (IOException e) {
            throw storageError("flush", e);
        }
        flushedOffset = logEndOffset();
        lastFlushMs = nowMs;
    }

    /** See {@link PartitionLog#closeWithPowerLoss}. */
    void closeWithPowerLoss(int tornBytes) {
        checkOpen();
        try {
            for (LogSegment segment : segments.values()) {
                segment.dropUnflushed(tornBytes);
            }
        } catch (IOException e) {
            throw storageError("simulate a power loss", e);
        }
        close();
    }

    /** Drops every batch holding an offset at or after {@code offset}, which must not be below the first segment. */
    void truncateTo(long offset) throws IOException {
        segments.truncateTo(offset, config.indexIntervalBytes());
        flushedOffset = Math.min(flushedOffset, logEndOffset());
    }

    /** Deletes every segment and starts an empty one at {@code offset}, as Kafka's truncateFullyAndStartAt. */
    void truncateFullyAndStartAt(long offset) throws IOException {
        segments.deleteAll();
        segments.add(LogSegment.open(dir, offset, stores));
        flushedOffset = offset;
    }

    /** Deletes the segments whose every offset is below {@code offset}; the active segment stays. */
    void deleteSegmentsBelow(long offset) throws IOException {
        segments.deleteSegmentsBelow(offset);
    }

    /** See {@link PartitionLog#createCleanedSegment}. */
    CleanedSegment createCleanedSegment(long baseOffset) {
        checkOpen();
        try {
            return new CleanedSegment(dir, baseOffset);
        } catch (IOException e) {
            throw storageError("create a cleaned segment at offset " + baseOffset, e);
        }
    }

    /** See {@link PartitionLog#replaceSegments}. */
    void replaceSegments(CleanedSegment cleaned, List<Long> oldBaseOffsets) {
        checkOpen();
        try {
            segments.checkReplaceable(cleaned.baseOffset(), oldBaseOffsets);
            cleaned.flush();
            cleaned.close();
            Path swap = LogFileUtils.swapFile(dir, cleaned.baseOffset());
            Files.move(cleaned.file(), swap, StandardCopyOption.ATOMIC_MOVE);
            segments.remove(oldBaseOffsets);
            LogSegment segment = LogLoader.completeSwap(dir, swap, stores, config.indexIntervalBytes());
            for (AbortedTxn txn : cleaned.abortedTxns()) {
                segment.appendAbortedTxn(txn);
            }
            segments.insert(segment);
        } catch (IOException e) {
            throw storageError("swap in the cleaned segment at offset " + cleaned.baseOffset(), e);
        }
    }

    /** Unmaps the files; unflushed appends stay in the page cache, as after a process exit. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            segments.close();
        } catch (IOException e) {
            throw storageError("close", e);
        }
    }

    /** Closes the log and removes its directory. */
    void delete() {
        close();
        try {
            LogFileUtils.deleteRecursively(dir);
        } catch (IOException e) {
            throw storageError("delete", e);
        }
    }

    void checkOpen() {
        if (closed) {
            throw new IllegalStateException("Log " + dir + " is closed");
        }
    }

    KafkaStorageException storageError(String action, IOException e) {
        return new KafkaStorageException("Cannot " + action + " in log " + dir + ": " + e.getMessage(), e);
    }
}
