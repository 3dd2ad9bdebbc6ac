package dev.samsa.log;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.stream.Stream;

import dev.samsa.log.store.MappedStoreFactory;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens the segments of a partition directory and recovers them, as Kafka's {@code LogLoader}:
 * every segment is scanned and cut after its last valid batch, and a segment that does not start
 * where the previous one ends (the previous one lost its tail) is deleted with all after it.
 * Scanning rebuilds the indexes (the transaction index included), the leader epochs and the producer state on the
 * way (Kafka reads producer state from .snapshot files; Samsa always rebuilds it).
 */
final class LogLoader {

    private static final Logger LOG = LoggerFactory.getLogger(LogLoader.class);

    record LoadedLog(LogSegments segments, long logStartOffset) {
    }

    private LogLoader() {
    }

    static LoadedLog load(Path dir, LogConfig config, MappedStoreFactory stores, long nowMs,
                          LeaderEpochCache epochs, ProducerStateManager producers) throws IOException {
        if (!Files.isDirectory(dir)) {
            // A new replica: nothing to recover, and its directory waits for the first append with the segment files.
            // On some file systems a directory costs a millisecond to make and more to remove, and a topic can have
            // thousands of replicas nobody writes to.
            LogSegments segments = new LogSegments();
            segments.add(LogSegment.createOnFirstAppend(dir, 0L, stores));
            return new LoadedLog(segments, 0L);
        }
        OptionalLong checkpoint = new LogStartOffsetCheckpoint(dir).read();
        LogSegments segments = new LogSegments();
        try {
            recoverInterruptedCleaning(dir);
            for (long baseOffset : segmentBaseOffsets(dir)) {
                Optional<LogSegment> last = segments.lastSegment();
                if (last.isPresent() && last.get().nextOffset() != baseOffset) {
                    LOG.warn("Deleting segment {} of {}: the previous segment ends at offset {}",
                            baseOffset, dir, last.get().nextOffset());
                    deleteSegmentFiles(dir, baseOffset);
                    continue;
                }
                LogSegment segment = LogSegment.open(dir, baseOffset, stores);
                segments.add(segment);
                segment.resetTransactionIndex();
                boolean torn = segment.recover(config.indexIntervalBytes(), nowMs, batch -> {
                    epochs.assign(batch.partitionLeaderEpoch(), batch.baseOffset());
                    producers.replay(batch, segment);
                });
                if (torn) {
                    LOG.warn("Recovered {}: dropped the bytes after its last valid batch, at position {}",
                            segment.logFile(), segment.size());
                }
            }
            long firstBase = segments.firstSegmentBaseOffset().orElse(0L);
            long logStartOffset = Math.max(checkpoint.orElse(firstBase), firstBase);
            long logEndOffset = segments.lastSegment().map(LogSegment::nextOffset).orElse(0L);
            if (segments.isEmpty() || logStartOffset > logEndOffset) {
                // Nothing survived above the log start offset: start empty there, as Kafka's
                // truncateFullyAndStartAt. That offset is 0 or checkpointed, so the files can wait for the first append.
                segments.deleteAll();
                epochs.clear();
                producers.clear();
                segments.add(LogSegment.createOnFirstAppend(dir, logStartOffset, stores));
            }
            producers.removeBefore(logStartOffset);
            epochs.truncateFromStart(logStartOffset);
            return new LoadedLog(segments, logStartOffset);
        } catch (IOException | RuntimeException e) {
            try {
                segments.close();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /**
     * What a crash in the middle of a cleaning pass left, repaired as Kafka's LogLoader does: a {@code .cleaned} file
     * was not finished and goes (the segments it was cleaned from are intact); a {@code .swap} file was finished and
     * forced to the device, so its swap is completed.
     */
    private static void recoverInterruptedCleaning(Path dir) throws IOException {
        List<Path> files;
        try (Stream<Path> list = Files.list(dir)) {
            files = list.sorted().toList();
        }
        for (Path file : files) {
            String name = file.getFileName().toString();
            if (name.endsWith(LogFileUtils.CLEANED_FILE_SUFFIX)) {
                LOG.warn("Deleting {}: a cleaning pass did not finish writing it", file);
                Files.delete(file);
            } else if (name.endsWith(LogFileUtils.SWAP_FILE_SUFFIX)) {
                LOG.warn("Completing the swap of {}: a cleaning pass did not finish swapping it in", file);
                finishSwap(dir, file);
            }
        }
    }

    /** Finishes the swap of a cleaned segment into the log (see {@link PartitionLog#replaceSegments}) and opens it. */
    static LogSegment completeSwap(Path dir, Path swap, MappedStoreFactory stores, int indexIntervalBytes)
            throws IOException {
        long baseOffset = finishSwap(dir, swap);
        LogSegment segment = LogSegment.open(dir, baseOffset, stores);
        // Not the active segment, so the roll time recovery would stamp is never read.
        segment.recover(indexIntervalBytes, 0L, batch -> { });
        return segment;
    }

    /**
     * Deletes the segments a swap file replaces, those based within its offsets (a cleaned segment keeps the last
     * batch of the segments it replaces, so it spans them all), then renames it to the segment's {@code .log}.
     */
    private static long finishSwap(Path dir, Path swap) throws IOException {
        long baseOffset = LogFileUtils.offsetFromFileName(swap);
        long lastOffset = -1L;
        try (FileRecords records = FileRecords.open(swap.toFile())) {
            Iterator<? extends RecordBatch> batches = records.batches().iterator();
            while (batches.hasNext()) {
                lastOffset = batches.next().lastOffset();
            }
        } catch (CorruptRecordException e) {
            // Zeros after the last batch, as a file that was once mapped has; the batches before them count.
        }
        for (long segment : segmentBaseOffsets(dir)) {
            if (segment >= baseOffset && segment <= lastOffset) {
                deleteSegmentFiles(dir, segment);
            }
        }
        Files.move(swap, LogFileUtils.logFile(dir, baseOffset), StandardCopyOption.ATOMIC_MOVE);
        return baseOffset;
    }

    static void deleteSegmentFiles(Path dir, long baseOffset) throws IOException {
        Files.deleteIfExists(LogFileUtils.logFile(dir, baseOffset));
        Files.deleteIfExists(LogFileUtils.offsetIndexFile(dir, baseOffset));
        Files.deleteIfExists(LogFileUtils.timeIndexFile(dir, baseOffset));
        Files.deleteIfExists(LogFileUtils.transactionIndexFile(dir, baseOffset));
    }

    private static List<Long> segmentBaseOffsets(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(LogFileUtils::isLogFile).map(LogFileUtils::offsetFromFileName).sorted().toList();
        }
    }
}
