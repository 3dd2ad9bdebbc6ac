package dev.samsa.log.cleaner;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import dev.samsa.log.LogConfig;
import dev.samsa.log.LogConfigs;
import dev.samsa.log.LogFileUtils;
import dev.samsa.log.PartitionLog;
import dev.samsa.log.store.MappedStoreFactory;
import dev.samsa.log.store.MappedStores;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One log, no cluster: what a cleaning pass keeps, removes and leaves on disk. */
class CleanerTest {

    static final long NOW = 1_767_225_600_000L; // 2026-01-01T00:00:00Z
    static final long DAY = 86_400_000L;
    static final CompactionConfig COMPACTION = new CompactionConfig(0.5, 0, Long.MAX_VALUE, DAY, 64 * 1024);
    /** Cleaned segments of up to 1 MiB: every test log fits in one. */
    static final CompactionConfig ONE_GROUP = new CompactionConfig(0.5, 0, Long.MAX_VALUE, DAY, 1 << 20);
    static final MappedStoreFactory STORES = MappedStores.jdk();

    @TempDir
    Path tmp;

    private final Cleaner cleaner = new Cleaner();

    private Path dir() {
        return tmp.resolve("table-0");
    }

    private static LogConfig config() {
        return LogConfigs.defaults().withSegmentBytes(16 * 1024).withCompact(true);
    }

    @Test
    void shouldKeepTheLatestRecordOfEveryKeyAtItsOriginalOffset() throws IOException {
        try (PartitionLog log = PartitionLog.open(dir(), config(), STORES, NOW)) {
            for (int i = 0; i < 10_000; i += 10) {
                SimpleRecord[] records = new SimpleRecord[10];
                for (int j = 0; j < 10; j++) {
                    records[j] = record("key-" + ((i + j) % 100), "value-" + (i + j));
                }
                log.appendAsLeader(MemoryRecords.withRecords(Compression.NONE, records), 0, NOW);
            }
            log.roll();
            int segmentsBefore = log.segmentInfos().size();

            CleanerStats stats = cleaner.clean(log, LogToClean.full(log, log.logEndOffset()), ONE_GROUP, NOW);

            Map<String, String> expected = new LinkedHashMap<>();
            for (int i = 9_900; i < 10_000; i++) {
                expected.put((i) + ":key-" + (i % 100), "value-" + i);
            }
            assertThat(readAll(log)).isEqualTo(expected);
            assertThat(log.logEndOffset()).isEqualTo(10_000);
            assertThat(stats.recordsRemoved()).isEqualTo(9_900);
            assertThat(log.segmentInfos().size()).as("small cleaned segments are grouped").isLessThan(segmentsBefore)
                    .as("one cleaned segment and the active one").isEqualTo(2);
            assertThat(log.read(5, 1 << 20, Long.MAX_VALUE, true).records().batches().iterator().next().lastOffset())
                    .as("a fetch in a gap gets the next batch").isGreaterThanOrEqualTo(5);
        }
        try (PartitionLog reopened = PartitionLog.open(dir(), config(), STORES, NOW)) {
            assertThat(readAll(reopened)).hasSize(100);
            assertThat(reopened.logEndOffset()).isEqualTo(10_000);
        }
    }

    @Test
    void shouldLeaveTheActiveSegmentAndTheDirtyRatioAlone() throws IOException {
        try (PartitionLog log = PartitionLog.open(dir(), config(), STORES, NOW)) {
            for (int i = 0; i < 50; i++) {
                log.appendAsLeader(MemoryRecords.withRecords(Compression.NONE, record("k", "v" + i)), 0, NOW);
            }
            LogToClean toClean = LogToClean.of(log, -1, log.logEndOffset(), COMPACTION, NOW);
            assertThat(toClean.firstUncleanableOffset()).as("all in the active segment").isZero();
            assertThat(toClean.shouldClean(COMPACTION)).isFalse();

            log.roll();
            assertThat(LogToClean.of(log, -1, log.logEndOffset(), COMPACTION, NOW).shouldClean(COMPACTION)).isTrue();
            LogToClean lagging = LogToClean.of(log, -1, log.logEndOffset(),
                    new CompactionConfig(0.5, 60_000, Long.MAX_VALUE, DAY, 64 * 1024), NOW + 59_999);
            assertThat(lagging.shouldClean(COMPACTION)).as("records newer than min.compaction.lag.ms").isFalse();
        }
    }

    @Test
    void shouldKeepATombstoneForDeleteRetentionAfterThePassThatReachedIt() throws IOException {
        try (PartitionLog log = PartitionLog.open(dir(), config(), STORES, NOW)) {
            log.appendAsLeader(MemoryRecords.withRecords(Compression.NONE, record("a", "1"), record("b", "1")), 0, NOW);
            log.appendAsLeader(MemoryRecords.withRecords(Compression.NONE, record("a", null), record("c", "1")), 0, NOW);
            log.appendAsLeader(MemoryRecords.withRecords(Compression.NONE, record("c", "2")), 0, NOW);
            log.roll();

            cleaner.clean(log, LogToClean.full(log, log.logEndOffset()), COMPACTION, NOW + 1_000);
            assertThat(readAll(log)).containsOnlyKeys("1:b", "2:a", "4:c");
            cleaner.clean(log, LogToClean.full(log, log.logEndOffset()), COMPACTION, NOW + 1_000 + DAY - 1);
            assertThat(readAll(log)).as("within delete.retention.ms of the first pass").containsKey("2:a");

            cleaner.clean(log, LogToClean.full(log, log.logEndOffset()), COMPACTION, NOW + 1_000 + DAY);
            assertThat(readAll(log)).containsOnlyKeys("1:b", "4:c");
            assertThat(log.logEndOffset()).isEqualTo(5);
        }
    }

    @Test
    void shouldKeepTheLastBatchOfAnIdempotentProducerSoItsSequenceSurvives() throws IOException {
        try (PartitionLog log = PartitionLog.open(dir(), config(), STORES, NOW)) {
            for (int seq = 0; seq < 20; seq++) {
                log.appendAsLeader(MemoryRecords.withIdempotentRecords(Compression.NONE, 7L, (short) 0, seq,
                        record("k" + (seq % 2), "v" + seq)), 0, NOW);
            }
            log.appendAsLeader(MemoryRecords.withRecords(Compression.NONE, record("k0", "overwritten")), 0, NOW);
            log.roll();
            cleaner.clean(log, LogToClean.full(log, log.logEndOffset()), COMPACTION, NOW);
            assertThat(readAll(log)).containsOnlyKeys("19:k1", "20:k0");
        }
        try (PartitionLog reopened = PartitionLog.open(dir(), config(), STORES, NOW)) {
            assertThat(reopened.activeProducers()).singleElement()
                    .satisfies(p -> assertThat(p.lastSequence()).isEqualTo(19));
            reopened.appendAsLeader(MemoryRecords.withIdempotentRecords(Compression.NONE, 7L, (short) 0, 20,
                    record("k0", "next")), 0, NOW);
        }
    }

    @Test
    void shouldRemoveAbortedRecordsAndKeepMarkersWhileTheirTransactionHasRecords() throws IOException {
        try (PartitionLog log = PartitionLog.open(dir(), config(), STORES, NOW)) {
            log.appendAsLeader(MemoryRecords.withTransactionalRecords(Compression.NONE, 5L, (short) 0, 0,
                    record("a", "aborted")), 0, NOW);
            log.appendTxnMarkerAsLeader(5L, (short) 0, 0, false, 0, NOW);
            log.appendAsLeader(MemoryRecords.withTransactionalRecords(Compression.NONE, 6L, (short) 0, 0,
                    record("b", "committed")), 0, NOW);
            log.appendTxnMarkerAsLeader(6L, (short) 0, 0, true, 0, NOW);
            log.appendAsLeader(MemoryRecords.withRecords(Compression.NONE, record("c", "plain")), 0, NOW);
            log.roll();

            cleaner.clean(log, LogToClean.full(log, log.logEndOffset()), COMPACTION, NOW);

            assertThat(readAll(log)).as("the aborted record is gone").containsOnlyKeys("2:b", "4:c");
        }
    }

    @Test
    void shouldCompleteASwapThatACrashInterrupted() throws IOException {
        List<Path> before;
        Map<String, String> cleaned;
        Path saved = tmp.resolve("saved");
        try (PartitionLog log = PartitionLog.open(dir(), config(), STORES, NOW)) {
            for (int i = 0; i < 2_000; i++) {
                log.appendAsLeader(MemoryRecords.withRecords(Compression.NONE, record("k" + (i % 10), "v" + i)), 0, NOW);
            }
            log.roll();
            log.flush(NOW);
            Files.createDirectories(saved);
            before = logFiles(dir());
            for (Path file : before) {
                Files.copy(file, saved.resolve(file.getFileName()));
            }
            cleaner.clean(log, LogToClean.full(log, log.logEndOffset()), ONE_GROUP, NOW);
            cleaned = readAll(log);
            assertThat(cleaned).hasSize(10);
        }
        // What a crash after the rename to .swap, before the old segments went, leaves: the old segments and the swap.
        List<Path> after = logFiles(dir());
        Path first = after.get(0);
        Files.move(first, Path.of(first + LogFileUtils.SWAP_FILE_SUFFIX), StandardCopyOption.ATOMIC_MOVE);
        for (Path file : before) {
            Files.copy(saved.resolve(file.getFileName()), file, StandardCopyOption.REPLACE_EXISTING);
        }
        try (PartitionLog reopened = PartitionLog.open(dir(), config(), STORES, NOW)) {
            assertThat(readAll(reopened)).isEqualTo(cleaned);
            assertThat(reopened.logEndOffset()).isEqualTo(2_000);
        }
    }

    @Test
    void shouldDropAnUnfinishedCleanedSegmentAndKeepTheOriginals() throws IOException {
        Map<String, String> original;
        try (PartitionLog log = PartitionLog.open(dir(), config(), STORES, NOW)) {
            for (int i = 0; i < 2_000; i++) {
                log.appendAsLeader(MemoryRecords.withRecords(Compression.NONE, record("k" + (i % 10), "v" + i)), 0, NOW);
            }
            log.roll();
            original = readAll(log);
            // A pass that crashed while writing: half a cleaned segment.
            Files.write(LogFileUtils.cleanedFile(dir(), 0), new byte[1234]);
        }
        try (PartitionLog reopened = PartitionLog.open(dir(), config(), STORES, NOW)) {
            assertThat(readAll(reopened)).isEqualTo(original).hasSize(2_000);
            assertThat(Files.exists(LogFileUtils.cleanedFile(dir(), 0))).isFalse();
        }
    }

    private static List<Path> logFiles(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(LogFileUtils::isLogFile).sorted().toList();
        }
    }

    static SimpleRecord record(String key, String value) {
        return new SimpleRecord(NOW, key.getBytes(StandardCharsets.UTF_8),
                value == null ? null : value.getBytes(StandardCharsets.UTF_8));
    }

    /** "offset:key" to value (null for a tombstone), in offset order, as a consumer from the start reads them. */
    static Map<String, String> readAll(PartitionLog log) {
        Map<String, String> out = new LinkedHashMap<>();
        List<RecordBatch> batches = new ArrayList<>();
        log.forEachBatch(batches::add);
        for (RecordBatch batch : batches) {
            if (batch.isControlBatch()) {
                continue;
            }
            for (Record record : batch) {
                out.put(record.offset() + ":" + string(record.key()), record.hasValue() ? string(record.value()) : null);
            }
        }
        return out;
    }

    private static String string(java.nio.ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
