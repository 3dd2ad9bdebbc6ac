package dev.samsa.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.function.Consumer;

import dev.samsa.log.store.MappedStoreFactory;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.Records;
import org.apache.kafka.common.record.TimestampType;

/**
 * The log of one partition replica, as Kafka's {@code UnifiedLog}: a directory
 * {@code <topic>-<partition>} of {@link LogSegment}s, with the leader epochs and the idempotent
 * producer state that go with it. The segments and their files are a {@link LocalLog}'s; this class owns what the
 * records mean: append validation and offsets, producer state, leader epochs, the log start offset, transactions and
 * retention.
 *
 * <p>Appends land in memory-mapped files, the page cache: they survive a process crash, and
 * {@link #flush(long)} makes them survive a power loss. {@link #open} recovers whatever it finds.
 *
 * <p>A storage failure surfaces as {@link KafkaStorageException} naming the file, so that a
 * handler can answer {@code KAFKA_STORAGE_ERROR} like any other protocol error.
 *
 * <p>This class is not thread-safe: the cluster loop owns the log. The records it returns, copies from
 * {@link #read} or views of the mapping from {@link #readMapped}, may be handed to network threads.
 */
public final class PartitionLog implements AutoCloseable {

    private final LocalLog local;
    private final String name;
    private final LeaderEpochCache epochs;
    private final ProducerStateManager producers;
    private final LogStartOffsetCheckpoint checkpoint;
    private long logStartOffset;

    private PartitionLog(LocalLog local, long logStartOffset, LeaderEpochCache epochs, ProducerStateManager producers) {
        this.local = local;
        this.name = local.dir().getFileName().toString();
        this.logStartOffset = logStartOffset;
        this.epochs = epochs;
        this.producers = producers;
        this.checkpoint = new LogStartOffsetCheckpoint(local.dir());
    }

    /**
     * Opens the log in {@code dir} (a new log makes the directory on its first append), and recovers existing
     * segments: each is cut after its last batch with a valid CRC, so a write torn by a power loss
     * disappears, and indexes, leader epochs and producer state are rebuilt from the batches.
     */
    public static PartitionLog open(Path dir, LogConfig config, MappedStoreFactory stores, long nowMs)
            throws IOException {
        LeaderEpochCache epochs = new LeaderEpochCache();
        ProducerStateManager producers = new ProducerStateManager(dir.getFileName().toString());
        LogLoader.LoadedLog loaded = LogLoader.load(dir, config, stores, nowMs, epochs, producers);
        return new PartitionLog(new LocalLog(dir, config, stores, loaded.segments(), nowMs), loaded.logStartOffset(),
                epochs, producers);
    }

    /**
     * Validates a produce request's records, assigns their offsets, stamps the leader epoch (and
     * the broker time for LOG_APPEND_TIME topics) into the batches in place, and appends them.
     * The client's batches are kept as they are otherwise, compression included.
     *
     * <p>A retry of one of an idempotent producer's last five batches is not appended again: the
     * result carries the offsets of the first append and {@code duplicate = true}.
     *
     * @throws InvalidRecordException if a batch breaks a rule of {@link LogValidator}
     * @throws RecordValidationException if records are refused one by one: no key on a compacted topic, a
     *         timestamp out of the allowed range, a batch marked LogAppendTime by the producer
     * @throws CorruptRecordException if a batch fails its CRC or the records hold no whole batch
     * @throws org.apache.kafka.common.errors.RecordTooLargeException if a batch exceeds max.message.bytes
     *         ({@code RecordBatchTooLargeException} if it exceeds segment.bytes)
     * @throws org.apache.kafka.common.errors.InvalidProducerEpochException if the producer was fenced
     * @throws org.apache.kafka.common.errors.OutOfOrderSequenceException on a sequence gap
     */
    public LogAppendInfo appendAsLeader(MemoryRecords records, int leaderEpoch, long nowMs) {
        local.checkOpen();
        MemoryRecords writable = writable(records);
        LogValidator.ValidRecords valid = LogValidator.throwIfInvalid(writable, config(), nowMs, name);
        for (LogValidator.ValidBatch validBatch : valid.batches()) {
            Optional<ProducerStateManager.BatchMetadata> duplicate = producers.findDuplicate(validBatch.batch());
            if (duplicate.isPresent()) {
                return new LogAppendInfo(duplicate.get().firstOffset(), duplicate.get().lastOffset(),
                        RecordBatch.NO_TIMESTAMP, logStartOffset, true);
            }
        }
        long firstOffset = logEndOffset();
        ProducerStateManager.Append producerAppend = producers.newAppend();
        long nextOffset = firstOffset;
        for (LogValidator.ValidBatch validBatch : valid.batches()) {
            int count = validBatch.batch().countOrNull();
            producerAppend.append(validBatch.batch(), nextOffset, nextOffset + count - 1);
            nextOffset += count;
        }
        boolean logAppendTime = config().timestampType() == TimestampType.LOG_APPEND_TIME;
        nextOffset = firstOffset;
        for (LogValidator.ValidBatch validBatch : valid.batches()) {
            MutableRecordBatch batch = validBatch.batch();
            nextOffset += batch.countOrNull();
            batch.setLastOffset(nextOffset - 1);
            batch.setPartitionLeaderEpoch(leaderEpoch);
            if (logAppendTime) {
                batch.setMaxTimestamp(TimestampType.LOG_APPEND_TIME, nowMs);
            } else if (batch.maxTimestamp() != validBatch.maxTimestamp()) {
                // Kafka trusts the records, not the header, for the batch's largest timestamp.
                batch.setMaxTimestamp(TimestampType.CREATE_TIME, validBatch.maxTimestamp());
            }
        }
        ByteBuffer buffer = writable.buffer();
        buffer.limit(buffer.position() + valid.validBytes());
        epochs.assign(leaderEpoch, firstOffset);
        local.append(MemoryRecords.readableRecords(buffer.slice()), firstOffset, nextOffset - 1, nowMs);
        producerAppend.commit();
        maybeFlush(nowMs);
        return new LogAppendInfo(firstOffset, nextOffset - 1, logAppendTime ? nowMs : RecordBatch.NO_TIMESTAMP,
                logStartOffset, false);
    }

    /**
     * Appends a transaction marker as the leader, as Kafka's {@code appendAsLeader} with origin COORDINATOR: a COMMIT
     * or ABORT control batch of the producer, stamped with the leader epoch and {@code nowMs}. It ends the producer's
     * ongoing transaction here, if any; an aborted one goes into the transaction index. Producers cannot write control
     * batches: {@link #appendAsLeader} rejects them.
     *
     * @throws org.apache.kafka.common.errors.InvalidProducerEpochException for an epoch older than the producer's
     * @throws org.apache.kafka.common.errors.TransactionCoordinatorFencedException for a coordinator epoch older than
     *         that of the producer's last marker
     */
    public LogAppendInfo appendTxnMarkerAsLeader(long producerId, short producerEpoch, int coordinatorEpoch,
                                                 boolean committed, int leaderEpoch, long nowMs) {
        local.checkOpen();
        long offset = logEndOffset();
        EndTransactionMarker marker = new EndTransactionMarker(committed ? ControlRecordType.COMMIT : ControlRecordType.ABORT,
                coordinatorEpoch);
        producers.throwIfInvalidEndTxnMarker(producerId, producerEpoch, marker, offset);
        MemoryRecords records = MemoryRecords.withEndTransactionMarker(offset, nowMs, leaderEpoch, producerId,
                producerEpoch, marker);
        epochs.assign(leaderEpoch, offset);
        local.append(records, offset, offset, nowMs);
        updateProducers(records, offset);
        maybeFlush(nowMs);
        return new LogAppendInfo(offset, offset, RecordBatch.NO_TIMESTAMP, logStartOffset, false);
    }

    /**
     * Appends batches a follower fetched from its leader, offsets and epochs already assigned: the leader's
     * {@link #readMapped} records, copied once, from its mapping into this log's.
     * Checks only what the leader cannot have got wrong by itself: magic, CRC and that offsets
     * continue from the log end.
     *
     * @param nowMs the cluster time, which segment.ms and flush.ms go by
     * @throws CorruptRecordException if a batch fails its CRC
     * @throws IllegalStateException if the first offset is below the log end offset
     */
    public void appendAsFollower(Records records, long nowMs) {
        local.checkOpen();
        long expected = logEndOffset();
        long firstOffset = -1L;
        int validBytes = 0;
        for (RecordBatch batch : records.batches()) {
            if (batch.magic() != RecordBatch.MAGIC_VALUE_V2) {
                throw new InvalidRecordException("Replicated batch with magic " + batch.magic() + " for " + name);
            }
            batch.ensureValid();
            if (batch.baseOffset() < expected) {
                throw new IllegalStateException("Replicated batch for " + name + " starts at offset " + batch.baseOffset()
                        + ", below the expected offset " + expected);
            }
            firstOffset = firstOffset < 0 ? batch.baseOffset() : firstOffset;
            expected = batch.lastOffset() + 1;
            validBytes += batch.sizeInBytes();
        }
        if (validBytes == 0) {
            return;
        }
        // Only a MemoryRecords can end in a partial batch, which its batches() leaves out.
        Records valid = validBytes == records.sizeInBytes() ? records : records.slice(0, validBytes);
        for (RecordBatch batch : valid.batches()) {
            epochs.assign(batch.partitionLeaderEpoch(), batch.baseOffset());
        }
        local.append(valid, firstOffset, expected - 1, nowMs);
        updateProducers(valid, firstOffset);
        maybeFlush(nowMs);
    }

    /**
     * What {@link #read} returns, but seen in place in the segment's mapping rather than copied: {@link MappedRecords}
     * the caller closes once done with them, or an empty {@link MemoryRecords}.
     *
     * @throws OffsetOutOfRangeException if {@code fetchOffset} is below the log start or above the log end
     */
    public Records readMapped(long fetchOffset, int maxBytes, long maxOffsetExclusive, boolean minOneBatch) {
        throwIfOutOfRange(fetchOffset);
        return local.readMapped(fetchOffset, maxBytes, maxOffsetExclusive, minOneBatch);
    }

    /** Every batch from the log start to the log end as they are now, in offset order, read 1 MiB at a time. */
    public void forEachBatch(Consumer<? super MutableRecordBatch> action) {
        long end = logEndOffset();
        long offset = logStartOffset();
        while (offset < end) {
            MemoryRecords records = read(offset, 1 << 20, end, true).records();
            if (records.sizeInBytes() == 0) {
                return;
            }
            for (MutableRecordBatch batch : records.batches()) {
                action.accept(batch);
                offset = batch.lastOffset() + 1;
            }
        }
    }

    /**
     * Reads whole batches, starting with the batch that contains {@code fetchOffset} (so the first
     * batch may begin before it), from one segment.
     *
     * @param maxOffsetExclusive batches whose last offset reaches this are not returned (the high watermark)
     * @param minOneBatch whether to return the first batch even if it is larger than {@code maxBytes}
     * @throws OffsetOutOfRangeException if {@code fetchOffset} is below the log start or above the log end
     */
    public LogReadInfo read(long fetchOffset, int maxBytes, long maxOffsetExclusive, boolean minOneBatch) {
        throwIfOutOfRange(fetchOffset);
        return local.read(fetchOffset, maxBytes, maxOffsetExclusive, minOneBatch);
    }

    private void throwIfOutOfRange(long fetchOffset) {
        local.checkOpen();
        long logEndOffset = logEndOffset();
        if (fetchOffset < logStartOffset || fetchOffset > logEndOffset) {
            throw new OffsetOutOfRangeException("Received request for offset " + fetchOffset + " for partition "
                    + name + ", but we only have log segments in the range " + logStartOffset + " to "
                    + logEndOffset + ".");
        }
    }

    /**
     * Kafka's lastStableOffset: the first offset of the oldest transaction not yet decided (or whose marker is not yet
     * replicated), if below the high watermark, else the high watermark. A read_committed consumer reads up to it.
     */
    public long lastStableOffset(long highWatermark) {
        local.checkOpen();
        OptionalLong firstUnstable = producers.firstUnstableOffset(highWatermark);
        return firstUnstable.isPresent() ? Math.min(firstUnstable.getAsLong(), highWatermark) : highWatermark;
    }

    /**
     * Kafka's collectAbortedTransactions: the aborted transactions overlapping {@code [fetchOffset, upperBoundOffset)},
     * from the segment holding {@code fetchOffset} on, in marker order.
     */
    public List<AbortedTxn> collectAbortedTransactions(long fetchOffset, long upperBoundOffset) {
        return local.collectAbortedTransactions(fetchOffset, upperBoundOffset);
    }

    /** Every producer this log knows, as DescribeProducers reports them, by producer id. */
    public List<ProducerState> activeProducers() {
        local.checkOpen();
        List<ProducerState> out = new ArrayList<>();
        producers.activeProducers().forEach((producerId, entry) -> out.add(new ProducerState(producerId,
                entry.producerEpoch(), entry.lastSeq(), entry.lastTimestamp(), entry.coordinatorEpoch(),
                entry.currentTxnFirstOffset().orElse(-1L))));
        out.sort(Comparator.comparingLong(ProducerState::producerId));
        return out;
    }

    /**
     * Kafka's removeExpiredProducers (producer.id.expiration.ms): forgets the producers without an ongoing transaction
     * whose last timestamp is at least {@code expirationMs} old at {@code nowMs}. A forgotten producer's retry is no
     * longer recognised as a duplicate.
     */
    public void removeExpiredProducers(long nowMs, long expirationMs) {
        local.checkOpen();
        producers.removeExpiredProducers(nowMs, expirationMs);
    }

    /** The aborted transactions indexed in each segment, oldest segment first. */
    List<List<AbortedTxn>> abortedTxnsBySegment() {
        return local.abortedTxnsBySegment();
    }

    /**
     * The first record, in offset order and at or after the log start offset, whose timestamp is
     * at least {@code timestamp}, as ListOffsets answers a timestamp query.
     */
    public Optional<TimestampAndOffset> offsetForTimestamp(long timestamp) {
        return local.offsetForTimestamp(timestamp, logStartOffset);
    }

    /**
     * The first record carrying the largest timestamp in the log, as ListOffsets MAX_TIMESTAMP
     * answers; {@link TimestampAndOffset#NONE} for an empty log.
     */
    public TimestampAndOffset maxTimestamp() {
        return local.maxTimestamp();
    }

    /**
     * Raises the log start offset (DeleteRecords) and deletes the segments wholly below it. The
     * new start offset is checkpointed first, so it survives a restart.
     *
     * @return the log start offset, which never goes down
     * @throws OffsetOutOfRangeException if {@code offset} is above the log end offset
     */
    public long deleteRecordsBefore(long offset) {
        local.checkOpen();
        if (offset > logEndOffset()) {
            throw new OffsetOutOfRangeException("Cannot delete records of " + name + " before offset " + offset
                    + ", which is above the log end offset " + logEndOffset() + ".");
        }
        if (offset <= logStartOffset) {
            return logStartOffset;
        }
        try {
            checkpoint.write(offset);
            logStartOffset = offset;
            local.deleteSegmentsBelow(offset);
        } catch (IOException e) {
            throw storageError("delete records before " + offset, e);
        }
        producers.removeBefore(offset);
        epochs.truncateFromStart(offset);
        return logStartOffset;
    }

    /**
     * Drops every batch that contains an offset at or after {@code offset}, across segments, as a
     * follower does when a new leader's log diverges. A batch is never cut, so the log end offset
     * may end up below {@code offset} if it falls inside a batch. Truncating below the log start
     * offset empties the log and starts it at {@code offset}.
     */
    public void truncateTo(long offset) {
        local.checkOpen();
        if (offset >= logEndOffset()) {
            return;
        }
        try {
            if (offset < logStartOffset) {
                truncateFullyAndStartAt(offset);
                return;
            }
            local.truncateTo(offset);
            epochs.truncateFromEnd(logEndOffset());
            rebuildProducerState();
            producers.removeBefore(logStartOffset);
        } catch (IOException e) {
            throw storageError("truncate to offset " + offset, e);
        }
    }

    /** Forces every segment written since the last flush to the device; {@code nowMs} is when, for flush.ms. */
    public void flush(long nowMs) {
        local.flush(nowMs);
    }

    /**
     * A power loss: drops the unflushed bytes of every segment, except the first {@code tornBytes}
     * of each unflushed tail, so a batch can be left half written; then closes the log. The next
     * {@link #open} recovers to the last whole batch.
     */
    public void closeWithPowerLoss(int tornBytes) {
        local.closeWithPowerLoss(tornBytes);
    }

    public void updateConfig(LogConfig config) {
        local.updateConfig(config);
    }

    public LogConfig config() {
        return local.config();
    }

    public long logStartOffset() {
        return logStartOffset;
    }

    /** The bytes of its segments, as Kafka's {@code UnifiedLog.size}: what DescribeLogDirs reports. */
    public long sizeInBytes() {
        return local.segments().sizeInBytes();
    }

    public long logEndOffset() {
        return local.logEndOffset();
    }

    /** The log end offset at the last flush: what survives a power loss. */
    public long flushedOffset() {
        return local.flushedOffset();
    }

    public long unflushedMessages() {
        return local.unflushedMessages();
    }

    public long lastFlushMs() {
        return local.lastFlushMs();
    }

    /** The leader epoch of the batch holding {@code offset}, as ListOffsets reports it for the earliest offset. */
    public OptionalInt epochForOffset(long offset) {
        return epochs.epochForOffset(offset);
    }

    /**
     * A new leader's epoch starts at its log end offset before it appends anything, as Kafka's {@code makeLeader}
     * assigns it: a follower whose latest epoch the leader never wrote in is then answered with the epoch before it.
     * Kept in memory only, like the rest of the cache; a restarted broker is a follower first.
     */
    public void assignLeaderEpoch(int epoch) {
        local.checkOpen();
        epochs.assign(epoch, logEndOffset());
    }

    public OptionalInt latestEpoch() {
        return epochs.latestEpoch();
    }

    /** OffsetsForLeaderEpoch; see {@link LeaderEpochCache#endOffsetFor}. */
    public EpochEndOffset endOffsetForEpoch(int requestedEpoch) {
        return epochs.endOffsetFor(requestedEpoch, logEndOffset());
    }

    public Path dir() {
        return local.dir();
    }

    /** Every segment, oldest first; the last is the active one, which the cleaner never touches. */
    public List<LogSegmentInfo> segmentInfos() {
        return local.segmentInfos();
    }

    /** Starts a new active segment at the log end, unless the active one is empty, as Kafka's {@code roll}. */
    public void roll() {
        local.roll();
    }

    /** Kafka's lastRecordsOfActiveProducers, by producer id. */
    public Map<Long, LastRecord> lastRecordsOfActiveProducers() {
        local.checkOpen();
        Map<Long, LastRecord> out = new HashMap<>();
        producers.activeProducers().forEach((producerId, entry) -> out.put(producerId, new LastRecord(
                entry.lastOffset() < 0 ? OptionalLong.empty() : OptionalLong.of(entry.lastOffset()),
                entry.producerEpoch())));
        return out;
    }

    /** A new {@code .cleaned} file for the segments from {@code baseOffset} on; see {@link #replaceSegments}. */
    public CleanedSegment createCleanedSegment(long baseOffset) {
        return local.createCleanedSegment(baseOffset);
    }

    /**
     * Swaps {@code cleaned} in for the segments based at {@code oldBaseOffsets}, as Kafka's replaceSegments: the
     * cleaned file is forced to the device and renamed {@code .swap}, the old segments are deleted, and the swap file
     * becomes the segment's {@code .log}. A crash at any point leaves either the old segments or a complete swap file,
     * which the next open finishes swapping in ({@link LogLoader}), so no record is lost. Indexes are rebuilt from the
     * cleaned records; the producer state is left as it is, as in Kafka.
     *
     * @throws IllegalArgumentException if the old segments include the active one or are not consecutive from the
     *         cleaned segment's base offset
     */
    public void replaceSegments(CleanedSegment cleaned, List<Long> oldBaseOffsets) {
        local.replaceSegments(cleaned, oldBaseOffsets);
    }

    /** Unmaps the files; unflushed appends stay in the page cache, as after a process exit. */
    @Override
    public void close() {
        local.close();
    }

    /** Closes the log and removes its directory. */
    public void delete() {
        local.delete();
    }

    @Override
    public String toString() {
        return "PartitionLog(" + local.dir() + ", offsets " + logStartOffset + ".." + logEndOffset() + ")";
    }

    /**
     * Has the files of an empty new log made on a background thread now rather than by its first append (see
     * LogSegment#prepareFiles); a log with files already is left as it is.
     */
    public void prepareFilesInBackground() {
        local.prepareFilesInBackground();
    }

    /** Base offsets of the segments, oldest first. */
    List<Long> segmentBaseOffsets() {
        return local.segmentBaseOffsets();
    }

    /**
     * Replays the whole log into a fresh producer state. The transaction indexes are rebuilt on the way, which
     * leaves the entries that survived a truncation as they were.
     */
    private void rebuildProducerState() throws IOException {
        producers.clear();
        for (LogSegment segment : local.segments().values()) {
            segment.resetTransactionIndex();
            segment.forEachBatch(batch -> producers.replay(batch, segment));
        }
    }

    /**
     * Records batches just appended from {@code firstOffset} on, unvalidated, as Kafka's appends of origin
     * REPLICATION do; then, as its UnifiedLog.append, completes the transactions their markers end, in the segment
     * that holds them (one append never spans segments).
     */
    private void updateProducers(Records appended, long firstOffset) {
        List<ProducerStateManager.CompletedTxn> completed = new ArrayList<>();
        for (RecordBatch batch : appended.batches()) {
            producers.update(batch).ifPresent(completed::add);
        }
        if (completed.isEmpty()) {
            return;
        }
        LogSegment segment = local.segments().values(firstOffset, firstOffset + 1).iterator().next();
        try {
            for (ProducerStateManager.CompletedTxn txn : completed) {
                producers.complete(txn, segment);
            }
        } catch (IOException e) {
            throw storageError("index the aborted transactions up to offset " + completed.get(completed.size() - 1).lastOffset(), e);
        }
    }

    private void maybeFlush(long nowMs) {
        if (unflushedMessages() >= config().flushMessages() || nowMs - lastFlushMs() >= config().flushMs()) {
            flush(nowMs);
        }
    }

    /**
     * Retention, as Kafka's deleteOldSegments: the offset before which whole segments may go, oldest first, because
     * their largest timestamp is older than {@code retentionMs} before {@code nowMs} or because the log is larger
     * than {@code retentionBytes} without them (-1: no limit); never past {@code maxOffset} (the high watermark).
     * The log start offset when nothing can go.
     */
    public long retentionCutoff(long nowMs, long retentionMs, long retentionBytes, long maxOffset) {
        local.checkOpen();
        long total = local.segments().sizeInBytes();
        long cutoff = logStartOffset;
        for (LogSegment segment : local.segments().values()) {
            boolean expired = retentionMs >= 0 && segment.maxTimestampSoFar() != RecordBatch.NO_TIMESTAMP
                    && segment.maxTimestampSoFar() < nowMs - retentionMs;
            boolean oversized = retentionBytes >= 0 && total - segment.size() >= retentionBytes;
            if (segment.size() == 0 || !(expired || oversized) || segment.nextOffset() > maxOffset) {
                break;
            }
            cutoff = segment.nextOffset();
            total -= segment.size();
        }
        return Math.max(cutoff, logStartOffset);
    }

    /**
     * Empties the log and starts it again at {@code offset}: what a follower does when its leader no longer has the
     * records it would need to catch up from where it is.
     */
    public void resetTo(long offset) {
        local.checkOpen();
        try {
            truncateFullyAndStartAt(offset);
        } catch (IOException e) {
            throw storageError("restart at offset " + offset, e);
        }
    }

    private void truncateFullyAndStartAt(long offset) throws IOException {
        local.truncateFullyAndStartAt(offset);
        checkpoint.write(offset);
        logStartOffset = offset;
        epochs.clear();
        producers.clear();
    }

    /** Offsets and epochs are written into the batches in place, so they must not be read-only. */
    private static MemoryRecords writable(MemoryRecords records) {
        ByteBuffer buffer = records.buffer();
        if (!buffer.isReadOnly()) {
            return records;
        }
        ByteBuffer copy = ByteBuffer.allocate(buffer.remaining());
        copy.put(buffer).flip();
        return MemoryRecords.readableRecords(copy);
    }

    private KafkaStorageException storageError(String action, IOException e) {
        return local.storageError(action, e);
    }
}
