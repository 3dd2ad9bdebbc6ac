package dev.samsa.log.cleaner;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.samsa.log.CleanedSegment;
import dev.samsa.log.LastRecord;
import dev.samsa.log.LogSegmentInfo;
import dev.samsa.log.PartitionLog;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.internals.BufferSupplier;
import org.apache.kafka.common.utils.internals.CloseableIterator;

/**
 * One cleaning pass over one log, as Kafka's {@code Cleaner}: map every key of the dirty part to its last offset, then
 * rewrite the segments up to the first uncleanable offset, grouped so that each cleaned segment stays within
 * segment.bytes, keeping:
 * <ul>
 *   <li>the last record of each key, at its original offset (the log keeps the gaps);</li>
 *   <li>a tombstone until {@code delete.retention.ms} after the pass that first reached it, which stamps that delete
 *       horizon into its batch (KIP-534), so the next pass after it removes the tombstone;</li>
 *   <li>the batch holding an active producer's last record, emptied if need be, so its sequence and epoch survive;</li>
 *   <li>no aborted transactional record, and a transaction's marker only while records of the transaction remain
 *       (markers too get a delete horizon);</li>
 *   <li>the last batch of each group of segments, emptied if need be, so that a cleaned segment ends where the next
 *       one starts: Kafka keeps the last batch of the pass only, but Samsa's recovery (and its swap completion) reads
 *       a segment that does not continue its predecessor as a lost tail.</li>
 * </ul>
 * Runs on the cluster loop, which owns the log.
 */
public final class Cleaner {

    private static final int READ_BYTES = 1 << 20;
    /** Kafka's default max.decompressed.message.bytes (no limit beyond what can be allocated), which Samsa keeps. */
    private static final int MAX_DECOMPRESSED_RECORD_BYTES = Integer.MAX_VALUE - 8;

    /** Cleans {@code toClean} of {@code log} at cluster time {@code nowMs}. */
    public CleanerStats clean(PartitionLog log, LogToClean toClean, CompactionConfig config, long nowMs) {
        long upperBound = toClean.firstUncleanableOffset();
        if (upperBound <= toClean.firstDirtyOffset()) {
            return new CleanerStats(0, 0, 0, 0, toClean.firstDirtyOffset());
        }
        OffsetMap map = buildOffsetMap(log, toClean.firstDirtyOffset(), upperBound);
        long endOffset = map.latestOffset() + 1;
        List<LogSegmentInfo> segments = log.segmentInfos();
        List<LogSegmentInfo> toRewrite = LogToClean.between(segments, 0, endOffset);
        CleanedTransactionMetadata txns = new CleanedTransactionMetadata();
        Totals totals = new Totals();
        for (List<LogSegmentInfo> group : groupBySize(toRewrite, config.segmentBytes())) {
            cleanSegments(log, group, map, config, nowMs, txns, upperBound, totals);
        }
        return new CleanerStats(totals.recordsRead, totals.recordsRead - totals.recordsRetained, totals.bytesRead,
                totals.bytesWritten, endOffset);
    }

    private static OffsetMap buildOffsetMap(PartitionLog log, long start, long end) {
        OffsetMap map = new OffsetMap();
        CleanedTransactionMetadata txns = new CleanedTransactionMetadata();
        txns.addAbortedTransactions(log.collectAbortedTransactions(start, end));
        long offset = start;
        while (offset < end) {
            MemoryRecords records = log.read(offset, READ_BYTES, end, true).records();
            if (records.sizeInBytes() == 0) {
                break;
            }
            for (MutableRecordBatch batch : records.batches()) {
                if (batch.isControlBatch()) {
                    txns.onControlBatchRead(batch);
                } else if (!txns.onBatchRead(batch)) {
                    try (CloseableIterator<Record> it = batch.streamingIterator(BufferSupplier.NO_CACHING)) {
                        while (it.hasNext()) {
                            Record record = it.next();
                            if (record.hasKey() && record.offset() >= start) {
                                map.put(record.key(), record.offset());
                            }
                        }
                    }
                }
                offset = batch.lastOffset() + 1;
            }
        }
        // Gaps left by earlier passes count as mapped, as Kafka fast-forwards to the end of each dirty segment.
        map.updateLatestOffset(end - 1);
        return map;
    }

    /** Kafka's groupSegmentsBySize: consecutive segments whose data together fits in one segment. */
    private static List<List<LogSegmentInfo>> groupBySize(List<LogSegmentInfo> segments, int maxSize) {
        List<List<LogSegmentInfo>> groups = new ArrayList<>();
        int i = 0;
        while (i < segments.size()) {
            List<LogSegmentInfo> group = new ArrayList<>();
            long size = 0;
            do {
                group.add(segments.get(i));
                size += segments.get(i).sizeInBytes();
                i++;
            } while (i < segments.size() && size + segments.get(i).sizeInBytes() <= maxSize
                    && segments.get(i).nextOffset() - 1 - group.get(0).baseOffset() <= Integer.MAX_VALUE);
            groups.add(group);
        }
        return groups;
    }

    private static void cleanSegments(PartitionLog log, List<LogSegmentInfo> group, OffsetMap map,
                                      CompactionConfig config, long nowMs, CleanedTransactionMetadata txns,
                                      long upperBound, Totals totals) {
        CleanedSegment cleaned = log.createCleanedSegment(group.get(0).baseOffset());
        txns.cleaningInto(cleaned);
        long groupEnd = group.get(group.size() - 1).nextOffset();
        Map<Long, LastRecord> lastRecords = log.lastRecordsOfActiveProducers();
        CleanerFilter filter = new CleanerFilter(nowMs, config.deleteRetentionMs(), map, txns, lastRecords,
                groupEnd, upperBound);
        try {
            for (LogSegmentInfo segment : group) {
                txns.addAbortedTransactions(log.collectAbortedTransactions(segment.baseOffset(), segment.nextOffset()));
                cleanInto(log, segment, cleaned, filter, totals);
            }
            List<Long> bases = group.stream().map(LogSegmentInfo::baseOffset).toList();
            log.replaceSegments(cleaned, bases);
        } catch (IOException | RuntimeException e) {
            try {
                cleaned.delete();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            if (e instanceof IOException io) {
                throw new KafkaStorageException("Cannot clean " + log + ": " + io.getMessage(), io);
            }
            throw (RuntimeException) e;
        }
    }

    private static void cleanInto(PartitionLog log, LogSegmentInfo segment, CleanedSegment cleaned,
                                  CleanerFilter filter, Totals totals) throws IOException {
        long offset = Math.max(segment.baseOffset(), log.logStartOffset());
        while (offset < segment.nextOffset()) {
            MemoryRecords records = log.read(offset, READ_BYTES, segment.nextOffset(), true).records();
            if (records.sizeInBytes() == 0) {
                return;
            }
            MemoryRecords.FilterResult result = records.filterTo(filter, ByteBuffer.allocate(records.sizeInBytes()),
                    BufferSupplier.NO_CACHING, MAX_DECOMPRESSED_RECORD_BYTES);
            // filterTo stops early when it had to grow the buffer; what it did not read is read again.
            int read = 0;
            for (RecordBatch batch : records.batches()) {
                if (read >= result.bytesRead()) {
                    break;
                }
                read += batch.sizeInBytes();
                totals.recordsRead += batch.isControlBatch() ? 1 : batch.countOrNull();
                offset = batch.lastOffset() + 1;
            }
            totals.bytesRead += result.bytesRead();
            totals.recordsRetained += result.messagesRetained();
            ByteBuffer output = result.outputBuffer();
            if (output.position() > 0) {
                output.flip();
                cleaned.append(MemoryRecords.readableRecords(output));
                totals.bytesWritten += output.limit();
            }
        }
    }

    private static final class Totals {
        private long recordsRead;
        private long recordsRetained;
        private long bytesRead;
        private long bytesWritten;
    }
}
