package dev.samsa.bench;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

import dev.samsa.log.LogConfigs;
import dev.samsa.log.LogFileUtils;
import dev.samsa.log.PartitionLog;
import dev.samsa.log.cleaner.Cleaner;
import dev.samsa.log.cleaner.CleanerStats;
import dev.samsa.log.cleaner.CompactionConfig;
import dev.samsa.log.cleaner.LogToClean;
import dev.samsa.log.store.MappedStores;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * Compaction cost: records per second one cleaning pass gets through, for a log of the given size (MiB, default 1024)
 * whose keys are 10% of its records, so 90% of the records go. Uncompressed batches of 100 records of 100-byte values,
 * 128 MiB segments, the JDK store. Not a test: surefire excludes {@code **}{@code /bench/**}.
 *
 * <pre>
 * mvn -o -q test-compile dependency:build-classpath -Dmdep.outputFile=target/cp.txt
 * java -cp target/classes:target/test-classes:$(cat target/cp.txt) dev.samsa.bench.CompactionBenchmark [MiB]
 * </pre>
 */
public final class CompactionBenchmark {

    private static final int RECORDS_PER_BATCH = 100;
    private static final int SEGMENT_BYTES = 128 << 20;

    private CompactionBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        long targetBytes = (args.length > 0 ? Long.parseLong(args[0]) : 1024L) << 20;
        Path dir = Files.createTempDirectory("samsa-compaction-bench").resolve("bench-0");
        long now = 1_767_225_600_000L;
        byte[] value = new byte[100];
        try (PartitionLog log = PartitionLog.open(dir, LogConfigs.defaults().withSegmentBytes(SEGMENT_BYTES)
                .withCompact(true), MappedStores.jdk(), now)) {
            long recordsEstimate = targetBytes / 130;
            long keys = Math.max(1, recordsEstimate / 10);
            long written = 0;
            long start = System.nanoTime();
            while (log.segmentInfos().stream().mapToLong(s -> s.sizeInBytes()).sum() < targetBytes) {
                SimpleRecord[] batch = new SimpleRecord[RECORDS_PER_BATCH];
                for (int i = 0; i < RECORDS_PER_BATCH; i++) {
                    batch[i] = new SimpleRecord(now, ("key-" + (written++ % keys)).getBytes(StandardCharsets.UTF_8), value);
                }
                log.appendAsLeader(MemoryRecords.withRecords(Compression.NONE, batch), 0, now);
            }
            log.roll();
            double writeSeconds = (System.nanoTime() - start) / 1e9;
            long bytes = log.segmentInfos().stream().mapToLong(s -> s.sizeInBytes()).sum();

            start = System.nanoTime();
            CleanerStats stats = new Cleaner().clean(log, LogToClean.full(log, log.logEndOffset()),
                    new CompactionConfig(0.5, 0, Long.MAX_VALUE, 86_400_000L, SEGMENT_BYTES), now);
            double seconds = (System.nanoTime() - start) / 1e9;
            long after = log.segmentInfos().stream().mapToLong(s -> s.sizeInBytes()).sum();
            System.out.printf(Locale.ROOT, "log: %,d records, %,d keys, %.0f MiB (written in %.1f s)%n", written, keys,
                    bytes / 1048576.0, writeSeconds);
            System.out.printf(Locale.ROOT, "pass: %.2f s, %,.0f records/s, %.0f MiB/s read; %,d records removed, "
                    + "%.0f MiB left%n", seconds, stats.recordsRead() / seconds, stats.bytesRead() / 1048576.0 / seconds,
                    stats.recordsRemoved(), after / 1048576.0);
        } finally {
            LogFileUtils.deleteRecursively(dir.getParent());
        }
    }
}
