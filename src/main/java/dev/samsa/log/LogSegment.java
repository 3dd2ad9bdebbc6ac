package dev.samsa.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;

import dev.samsa.log.store.MappedStore;
import dev.samsa.log.store.MappedStoreFactory;
import dev.samsa.log.store.PreparedStore;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.record.internal.DefaultRecordBatch;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.Records;

/**
 * One segment of a partition log: a {@code .log} file of whole record batches in offset order,
 * with its {@link OffsetIndex}, {@link TimeIndex} and {@link TransactionIndex}, all named by the segment's base
 * offset.
 *
 * <p>The log file is mapped and larger than its data, so the end of the data is the end of the
 * last valid batch, found by {@link #recover} and tracked in memory after that. The offset and time indexes live in
 * memory (see {@link IndexFile}).
 *
 * <p>This class is not thread-safe: the cluster loop owns the log.
 */
final class LogSegment {

    private static final int BATCH_HEADER_TO_LAST_OFFSET_DELTA = DefaultRecordBatch.LAST_OFFSET_DELTA_OFFSET + Integer.BYTES;

    private final long baseOffset;
    private final Path logFile;
    private final MappedStoreFactory stores;
    /** Null until the first append to a segment created by {@link #createOnFirstAppend}. */
    private MappedStore log;
    /** The log file being made ahead of the first append ({@link #prepareFiles}), until that append takes it. */
    private PreparedStore prepared;
    private final OffsetIndex offsetIndex;
    private final TimeIndex timeIndex;
    private final TransactionIndex txnIndex;
    private int size;
    private long nextOffset;
    private int bytesSinceLastIndexEntry;
    private long maxTimestampSoFar = RecordBatch.NO_TIMESTAMP;
    private long offsetOfMaxTimestampSoFar = -1L;
    /** Cluster time of the first append, or of the open that found the segment with data. */
    private long rollBaseMs = -1L;

    private LogSegment(Path dir, long baseOffset, MappedStoreFactory stores) {
        this.baseOffset = baseOffset;
        this.logFile = LogFileUtils.logFile(dir, baseOffset);
        this.stores = stores;
        this.offsetIndex = new OffsetIndex(baseOffset, new IndexFile(LogFileUtils.offsetIndexFile(dir, baseOffset),
                OffsetIndex.ENTRY_SIZE));
        this.timeIndex = new TimeIndex(baseOffset, new IndexFile(LogFileUtils.timeIndexFile(dir, baseOffset),
                TimeIndex.ENTRY_SIZE));
        this.txnIndex = new TransactionIndex(LogFileUtils.transactionIndexFile(dir, baseOffset), stores);
        this.nextOffset = baseOffset;
    }

    /** Opens or creates the segment's log file; an existing segment holds no data until {@link #recover}. */
    static LogSegment open(Path dir, long baseOffset, MappedStoreFactory stores) throws IOException {
        LogSegment segment = new LogSegment(dir, baseOffset, stores);
        Files.createDirectories(dir);
        segment.log = stores.open(segment.logFile);
        return segment;
    }

    /**
     * An empty segment whose files (and directory) are created by its first append, as a partition that nobody writes
     * to needs none: the partitions of {@code __consumer_offsets} cost nothing on disk until a group uses them.
     * Only for a log with no segment on disk, whose start offset is 0 or checkpointed, so that a restart before the
     * first append finds the same empty log.
     */
    static LogSegment createOnFirstAppend(Path dir, long baseOffset, MappedStoreFactory stores) {
        return new LogSegment(dir, baseOffset, stores);
    }

    /**
     * The log file of a segment from {@link #createOnFirstAppend}, which has none yet; the index files follow when
     * they are first written.
     */
    private void createFiles() throws IOException {
        if (prepared != null) {
            PreparedStore ready = prepared;
            prepared = null;
            log = ready.take();
            return;
        }
        Files.createDirectories(logFile.getParent());
        log = stores.create(logFile);
    }

    /**
     * Has the files of a segment from {@link #createOnFirstAppend} made on a background thread now, so that its first
     * append does no file-system work; for a replica that is about to be written, such as a coordinator's partition.
     */
    void prepareFiles() {
        if (log == null && prepared == null) {
            prepared = PreparedStore.start(stores, logFile);
        }
    }

    private void cancelPreparedFiles() throws IOException {
        if (prepared != null) {
            PreparedStore unused = prepared;
            prepared = null;
            unused.cancel();
        }
    }

    /** Sees the batches of a segment in order; may write to the segment's transaction index. */
    interface BatchVisitor {
        void accept(RecordBatch batch) throws IOException;
    }

    /**
     * Scans the batches from the start of the file, validating each (CRC, magic, size, increasing
     * offsets), rebuilds the offset and time indexes, and drops everything from the first invalid, torn or zero
     * batch on: that is how a power loss in the middle of a write is repaired. The transaction index needs the
     * producer state of the segments before, so {@code onBatch} rebuilds it, after {@link #resetTransactionIndex()}.
     *
     * @param onBatch sees every valid batch in order, to rebuild producer state and epochs
     * @return whether bytes were dropped after the last valid batch
     */
    boolean recover(int indexIntervalBytes, long nowMs, BatchVisitor onBatch) throws IOException {
        offsetIndex.truncateToPosition(0);
        timeIndex.truncateTo(baseOffset);
        size = 0;
        nextOffset = baseOffset;
        bytesSinceLastIndexEntry = 0;
        maxTimestampSoFar = RecordBatch.NO_TIMESTAMP;
        offsetOfMaxTimestampSoFar = -1L;
        long fileSize = log.fileSize();
        MutableRecordBatch batch;
        while ((batch = validBatchAt(size, fileSize)) != null) {
            index(batch, size, indexIntervalBytes);
            onBatch.accept(batch);
            size += batch.sizeInBytes();
        }
        boolean torn = size + Records.LOG_OVERHEAD <= fileSize && !isZero(log.read(size, Records.LOG_OVERHEAD));
        log.truncate(size);
        rollBaseMs = size > 0 ? nowMs : -1L;
        return torn;
    }

    /**
     * Appends batches whose offsets are assigned and follow {@link #nextOffset()}: a {@link MemoryRecords} or another
     * log's {@link MappedRecords}, copied once, from its mapping into this one.
     */
    void append(Records records, int indexIntervalBytes, long nowMs) throws IOException {
        if (log == null) {
            createFiles();
        }
        if (size == 0) {
            rollBaseMs = nowMs;
        }
        int position = size;
        if (records instanceof MappedRecords mapped) {
            long at = position;
            for (ByteBuffer buffer : mapped.buffers()) {
                log.write(at, buffer);
                at += buffer.remaining();
            }
        } else {
            log.write(position, ((MemoryRecords) records).buffer());
        }
        for (RecordBatch batch : records.batches()) {
            index(batch, position, indexIntervalBytes);
            position += batch.sizeInBytes();
        }
        size = position;
    }

    /** Whether the next append of {@code bytes} ending at {@code lastOffset} belongs in a new segment. */
    boolean shouldRoll(LogConfig config, int bytes, long lastOffset, long nowMs) {
        if (size == 0) {
            return false;
        }
        return (long) size + bytes > config.segmentBytes()
                || nowMs - rollBaseMs >= config.segmentMs()
                || lastOffset - baseOffset > Integer.MAX_VALUE;
    }

    /**
     * Whole batches from the one that contains {@code startOffset}, stopping before a batch whose
     * last offset reaches {@code maxOffsetExclusive} or that would take the total past
     * {@code maxBytes}; if {@code minOneBatch} and the first batch alone is too big, that batch.
     *
     * @return empty if {@code startOffset} is past this segment's data
     */
    Optional<MemoryRecords> read(long startOffset, int maxBytes, long maxOffsetExclusive, boolean minOneBatch)
            throws IOException {
        Optional<Range> range = range(startOffset, maxBytes, maxOffsetExclusive, minOneBatch);
        if (range.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(MemoryRecords.readableRecords(log.read(range.get().start, range.get().length())));
    }

    /**
     * What {@link #read} returns, seen in place in the mapping; an empty {@link MemoryRecords} when no whole batch
     * fits.
     *
     * @return empty if {@code startOffset} is past this segment's data
     */
    Optional<Records> readMapped(long startOffset, int maxBytes, long maxOffsetExclusive, boolean minOneBatch)
            throws IOException {
        Optional<Range> found = range(startOffset, maxBytes, maxOffsetExclusive, minOneBatch);
        if (found.isEmpty()) {
            return Optional.empty();
        }
        Range range = found.get();
        if (range.length() == 0) {
            return Optional.of(MemoryRecords.EMPTY);
        }
        return Optional.of(new MappedRecords(log.view(range.start, range.length()), range.lastBatchStart - range.start));
    }

    /** Whole batches at {@code [start, end)}, the last of them at {@code lastBatchStart}. */
    private record Range(int start, int end, int lastBatchStart) {
        int length() {
            return end - start;
        }
    }

    /**
     * Where the batches {@link #read} returns lie, walking batch headers only; empty if {@code startOffset} is past
     * this segment's data.
     */
    private Optional<Range> range(long startOffset, int maxBytes, long maxOffsetExclusive, boolean minOneBatch)
            throws IOException {
        int start = positionOfBatchContaining(startOffset);
        if (start >= size) {
            return Optional.empty();
        }
        int end = start;
        int lastBatchStart = start;
        while (end < size) {
            ByteBuffer header = batchHeaderAt(end);
            int batchSize = header.getInt(Records.SIZE_OFFSET) + Records.LOG_OVERHEAD;
            if (lastOffset(header) >= maxOffsetExclusive) {
                break;
            }
            if ((long) end - start + batchSize > maxBytes) {
                if (end == start && minOneBatch) {
                    end += batchSize;
                }
                break;
            }
            lastBatchStart = end;
            end += batchSize;
        }
        return Optional.of(new Range(start, end, lastBatchStart));
    }

    /** The first record, in offset order from {@code startingOffset}, whose timestamp is at least {@code timestamp}. */
    Optional<TimestampAndOffset> findOffsetByTimestamp(long timestamp, long startingOffset) throws IOException {
        if (maxTimestampSoFar < timestamp) {
            return Optional.empty();
        }
        long indexed = timeIndex.lookup(timestamp);
        int position = Math.max(indexed < 0 ? 0 : offsetIndex.lookup(indexed), offsetIndex.lookup(startingOffset));
        while (position < size) {
            MutableRecordBatch batch = batchAt(position);
            if (batch.maxTimestamp() >= timestamp && batch.lastOffset() >= startingOffset) {
                for (Record record : batch) {
                    if (record.timestamp() >= timestamp && record.offset() >= startingOffset) {
                        return Optional.of(new TimestampAndOffset(record.timestamp(), record.offset(),
                                batch.partitionLeaderEpoch()));
                    }
                }
            }
            position += batch.sizeInBytes();
        }
        return Optional.empty();
    }

    /** The first record carrying this segment's largest timestamp. */
    Optional<TimestampAndOffset> maxTimestampRecord() throws IOException {
        if (offsetOfMaxTimestampSoFar < 0) {
            return Optional.empty();
        }
        MutableRecordBatch batch = batchAt(positionOfBatchContaining(offsetOfMaxTimestampSoFar));
        for (Record record : batch) {
            if (record.timestamp() == maxTimestampSoFar) {
                return Optional.of(new TimestampAndOffset(record.timestamp(), record.offset(), batch.partitionLeaderEpoch()));
            }
        }
        // A LOG_APPEND_TIME batch, or a batch whose header disagrees with its records.
        return Optional.of(new TimestampAndOffset(maxTimestampSoFar, batch.baseOffset(), batch.partitionLeaderEpoch()));
    }

    /**
     * Drops the batch containing {@code offset} and everything after it; a batch is never cut. The batches that stay
     * were appended when they were, so segment.ms still counts from the first of them, as in Kafka. The transaction
     * index is left to the log, which rebuilds it with the producer state.
     */
    void truncateTo(long offset, int indexIntervalBytes) throws IOException {
        int position = positionOfBatchContaining(offset);
        if (position >= size) {
            return;
        }
        log.truncate(position);
        recover(indexIntervalBytes, rollBaseMs, batch -> { });
    }

    /** Indexes an aborted transaction whose marker is in this segment. */
    void appendAbortedTxn(AbortedTxn txn) throws IOException {
        txnIndex.append(txn);
    }

    /** See {@link TransactionIndex#collect}. */
    boolean collectAbortedTxns(long fetchOffset, long upperBoundOffset, List<AbortedTxn> out) {
        return txnIndex.collect(fetchOffset, upperBoundOffset, out);
    }

    List<AbortedTxn> abortedTxns() {
        return txnIndex.entries();
    }

    void resetTransactionIndex() throws IOException {
        txnIndex.reset();
    }

    /** Visits every batch in order. */
    void forEachBatch(BatchVisitor visitor) throws IOException {
        for (int position = 0; position < size; ) {
            MutableRecordBatch batch = batchAt(position);
            visitor.accept(batch);
            position += batch.sizeInBytes();
        }
    }

    /**
     * Forces the log to the device. The offset and time index files are written but not forced: recovery rebuilds
     * them from the log, so a power loss cannot leave one that matters.
     */
    void flush() throws IOException {
        if (log == null) {
            return;
        }
        log.flush();
        offsetIndex.writeFile();
        timeIndex.writeFile();
        txnIndex.flush();
    }

    /** Cuts the unflushed tail of the log file at {@code keepBytes} past the flushed position. */
    void dropUnflushed(long keepBytes) throws IOException {
        if (log == null) {
            return;
        }
        long flushed = log.flushedPosition();
        if (flushed < size) {
            log.truncate(Math.min(size, flushed + Math.max(0, keepBytes)));
        }
    }

    /** Writes the index files and unmaps the log. */
    void close() throws IOException {
        if (log == null) {
            cancelPreparedFiles();
            return;
        }
        try (MappedStore store = log) {
            offsetIndex.writeFile();
            timeIndex.writeFile();
            txnIndex.close();
        }
    }

    void deleteFiles() throws IOException {
        cancelPreparedFiles();
        if (log != null) {
            try (MappedStore store = log) {
                txnIndex.close();
            }
        }
        Files.deleteIfExists(logFile);
        Files.deleteIfExists(offsetIndex.file().path());
        Files.deleteIfExists(timeIndex.file().path());
        txnIndex.deleteFile();
    }

    long baseOffset() {
        return baseOffset;
    }

    /** One past the last offset in this segment, or the base offset if it is empty. */
    long nextOffset() {
        return nextOffset;
    }

    int size() {
        return size;
    }

    long maxTimestampSoFar() {
        return maxTimestampSoFar;
    }

    /** The largest timestamp of the first batch, as Kafka's getFirstBatchTimestamp; -1 if the segment is empty. */
    long firstBatchTimestamp() throws IOException {
        return size == 0 ? -1L : batchAt(0).maxTimestamp();
    }

    Path logFile() {
        return logFile;
    }

    @Override
    public String toString() {
        return "LogSegment(" + logFile + ", offsets " + baseOffset + ".." + (nextOffset - 1) + ", " + size + " bytes)";
    }

    private void index(RecordBatch batch, int position, int indexIntervalBytes) throws IOException {
        if (bytesSinceLastIndexEntry > indexIntervalBytes) {
            offsetIndex.append(batch.lastOffset(), position);
            bytesSinceLastIndexEntry = 0;
        }
        bytesSinceLastIndexEntry += batch.sizeInBytes();
        if (batch.maxTimestamp() > maxTimestampSoFar) {
            maxTimestampSoFar = batch.maxTimestamp();
            offsetOfMaxTimestampSoFar = batch.lastOffset();
            timeIndex.maybeAppend(maxTimestampSoFar, offsetOfMaxTimestampSoFar);
        }
        nextOffset = batch.lastOffset() + 1;
    }

    private int positionOfBatchContaining(long offset) throws IOException {
        int position = offsetIndex.lookup(offset);
        while (position < size) {
            ByteBuffer header = batchHeaderAt(position);
            if (lastOffset(header) >= offset) {
                return position;
            }
            position += header.getInt(Records.SIZE_OFFSET) + Records.LOG_OVERHEAD;
        }
        return size;
    }

    /**
     * The header of the batch at {@code position}, up to its last offset delta: enough to walk the log without
     * reading the records.
     */
    private ByteBuffer batchHeaderAt(int position) throws IOException {
        ByteBuffer header = log.read(position, BATCH_HEADER_TO_LAST_OFFSET_DELTA);
        int batchSize = header.getInt(Records.SIZE_OFFSET) + Records.LOG_OVERHEAD;
        if (batchSize < DefaultRecordBatch.RECORD_BATCH_OVERHEAD || (long) position + batchSize > size) {
            throw new IllegalStateException("Segment " + log.path() + " has a batch of " + batchSize
                    + " bytes at position " + position + " past its data end " + size);
        }
        return header;
    }

    private static long lastOffset(ByteBuffer header) {
        return header.getLong(0) + header.getInt(DefaultRecordBatch.LAST_OFFSET_DELTA_OFFSET);
    }

    /** A batch inside the recovered data, which is valid by construction. */
    private MutableRecordBatch batchAt(int position) throws IOException {
        int batchSize = log.read(position, Records.LOG_OVERHEAD).getInt(Records.SIZE_OFFSET) + Records.LOG_OVERHEAD;
        if (batchSize < DefaultRecordBatch.RECORD_BATCH_OVERHEAD || (long) position + batchSize > size) {
            throw new IllegalStateException("Segment " + logFile + " has a batch of " + batchSize
                    + " bytes at position " + position + " past its data end " + size);
        }
        return single(log.read(position, batchSize));
    }

    /** The batch at {@code position} if it is whole, valid and continues the offsets, else null. */
    private MutableRecordBatch validBatchAt(int position, long fileSize) throws IOException {
        if (position + Records.HEADER_SIZE_UP_TO_MAGIC > fileSize) {
            return null;
        }
        ByteBuffer header = log.read(position, Records.HEADER_SIZE_UP_TO_MAGIC);
        long batchSize = (long) header.getInt(Records.SIZE_OFFSET) + Records.LOG_OVERHEAD;
        if (header.get(Records.MAGIC_OFFSET) != RecordBatch.MAGIC_VALUE_V2
                || batchSize < DefaultRecordBatch.RECORD_BATCH_OVERHEAD
                || position + batchSize > Math.min(fileSize, Integer.MAX_VALUE)) {
            return null;
        }
        MutableRecordBatch batch = single(log.read(position, (int) batchSize));
        try {
            batch.ensureValid();
        } catch (CorruptRecordException e) {
            return null;
        }
        if (batch.baseOffset() < nextOffset || batch.lastOffset() < batch.baseOffset()
                || batch.lastOffset() - baseOffset > Integer.MAX_VALUE) {
            return null;
        }
        return batch;
    }

    private static MutableRecordBatch single(ByteBuffer buffer) {
        Iterator<MutableRecordBatch> batches = MemoryRecords.readableRecords(buffer).batches().iterator();
        return batches.next();
    }

    private static boolean isZero(ByteBuffer buffer) {
        while (buffer.hasRemaining()) {
            if (buffer.get() != 0) {
                return false;
            }
        }
        return true;
    }
}
