package dev.samsa.log;

import static dev.samsa.log.LogTestSupport.NOW;
import static dev.samsa.log.LogTestSupport.simple;
import static dev.samsa.log.LogTestSupport.values;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import dev.samsa.log.store.MappedStores;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The segments and files of a log on their own: batches whose offsets are already assigned, as a follower has them. */
class LocalLogTest {

    @TempDir
    Path tmp;

    private LocalLog log;

    @AfterEach
    void closeLog() {
        if (log != null) {
            log.close();
        }
    }

    private LocalLog open() {
        Path dir = tmp.resolve("orders-0");
        LogSegments segments = new LogSegments();
        segments.add(LogSegment.createOnFirstAppend(dir, 0L, MappedStores.detect()));
        log = new LocalLog(dir, LogConfigs.defaults(), MappedStores.detect(), segments, NOW);
        return log;
    }

    private void append(long baseOffset, String... values) {
        MemoryRecords records = MemoryRecords.withRecords(baseOffset, Compression.NONE, simple(NOW, values));
        log.append(records, baseOffset, baseOffset + values.length - 1, NOW);
    }

    @Test
    void shouldReadAcrossARolledSegmentAndNothingAtTheLogEnd() {
        open();
        append(0, "a", "b");
        log.roll();
        append(2, "c");

        assertThat(log.segmentBaseOffsets()).containsExactly(0L, 2L);
        assertThat(values(log.read(1, Integer.MAX_VALUE, Long.MAX_VALUE, true).records()))
                .as("the first segment's batch holding offset 1").containsExactly("0:a", "1:b");
        assertThat(values(log.read(2, Integer.MAX_VALUE, Long.MAX_VALUE, true).records())).containsExactly("2:c");
        assertThat(log.read(3, Integer.MAX_VALUE, Long.MAX_VALUE, true).records().sizeInBytes()).isZero();
    }

    @Test
    void shouldNotRollAnEmptyActiveSegment() {
        open();
        log.roll();
        append(0, "a");
        log.roll();
        log.roll();

        assertThat(log.segmentBaseOffsets()).containsExactly(0L, 1L);
    }

    @Test
    void shouldKeepTheFlushedOffsetAtOrBelowTheLogEndWhenTruncated() throws IOException {
        open();
        append(0, "a", "b");
        append(2, "c");
        log.flush(NOW + 5);

        assertThat(log.flushedOffset()).isEqualTo(3);
        assertThat(log.lastFlushMs()).isEqualTo(NOW + 5);
        append(3, "d");
        assertThat(log.unflushedMessages()).isEqualTo(1);

        log.truncateTo(2);

        assertThat(log.logEndOffset()).isEqualTo(2);
        assertThat(log.flushedOffset()).as("the truncated offsets are no longer there to keep").isEqualTo(2);
        assertThat(log.unflushedMessages()).isZero();
    }

    @Test
    void shouldStartEmptyAtTheGivenOffsetWhenTruncatedFully() throws IOException {
        open();
        append(0, "a", "b");
        log.roll();
        append(2, "c");

        log.truncateFullyAndStartAt(10);

        assertThat(log.segmentBaseOffsets()).containsExactly(10L);
        assertThat(log.logEndOffset()).isEqualTo(10);
        assertThat(log.flushedOffset()).isEqualTo(10);
        assertThat(LogFileUtils.logFile(log.dir(), 0)).doesNotExist();
        append(10, "k");
        assertThat(values(log.read(10, Integer.MAX_VALUE, Long.MAX_VALUE, true).records())).containsExactly("10:k");
    }

    @Test
    void shouldRefuseToReadOnceClosedAndRemoveItsDirectoryOnDelete() {
        open();
        append(0, "a");
        log.close();

        assertThatThrownBy(() -> log.read(0, Integer.MAX_VALUE, Long.MAX_VALUE, true))
                .isInstanceOf(IllegalStateException.class);
        assertThat(Files.isDirectory(log.dir())).isTrue();
        log.delete();
        assertThat(log.dir()).doesNotExist();
    }
}
