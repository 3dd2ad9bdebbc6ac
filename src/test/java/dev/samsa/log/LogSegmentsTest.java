package dev.samsa.log;

import static dev.samsa.log.LogTestSupport.NOW;
import static dev.samsa.log.LogTestSupport.simple;
import static dev.samsa.log.LogTestSupport.values;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import dev.samsa.log.store.MappedStores;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The segment set on its own: segments made by hand, no PartitionLog, no cluster. */
class LogSegmentsTest {

    private static final int INDEX_INTERVAL_BYTES = 4096;

    @TempDir
    Path dir;

    private final LogSegments segments = new LogSegments();

    @AfterEach
    void close() throws IOException {
        segments.close();
    }

    /** A segment at {@code baseOffset} holding one batch per group of values, offsets following on. */
    private LogSegment segment(long baseOffset, String... batches) throws IOException {
        LogSegment segment = LogSegment.open(dir, baseOffset, MappedStores.detect());
        long offset = baseOffset;
        for (String batch : batches) {
            String[] values = batch.split(",");
            segment.append(MemoryRecords.withRecords(offset, Compression.NONE, simple(NOW, values)),
                    INDEX_INTERVAL_BYTES, NOW);
            offset += values.length;
        }
        return segment;
    }

    /** Segments 0 (offsets 0..1), 2 (2..4) and 5 (5), the last one active. */
    private void threeSegments() throws IOException {
        segments.add(segment(0, "a,b"));
        segments.add(segment(2, "c,d", "e"));
        segments.add(segment(5, "f"));
    }

    private static List<Long> baseOffsetsOf(Iterable<LogSegment> segments) {
        List<Long> out = new ArrayList<>();
        segments.forEach(s -> out.add(s.baseOffset()));
        return out;
    }

    @Test
    void shouldKeepSegmentsInBaseOffsetOrderWithTheLastActive() throws IOException {
        assertThat(segments.isEmpty()).isTrue();
        assertThat(segments.lastSegment()).isEmpty();
        assertThat(segments.firstSegmentBaseOffset()).isEmpty();
        assertThatThrownBy(segments::activeSegment).isInstanceOf(IllegalStateException.class);

        threeSegments();

        assertThat(segments.isEmpty()).isFalse();
        assertThat(segments.baseOffsets()).containsExactly(0L, 2L, 5L);
        assertThat(baseOffsetsOf(segments.values())).containsExactly(0L, 2L, 5L);
        assertThat(segments.firstSegmentBaseOffset()).hasValue(0L);
        assertThat(segments.activeSegment().baseOffset()).isEqualTo(5L);
        assertThat(segments.lastSegment()).containsSame(segments.activeSegment());
        assertThat(segments.activeSegment().nextOffset()).isEqualTo(6L);
    }

    @Test
    void shouldRefuseASegmentThatDoesNotComeAfterTheActiveOne() throws IOException {
        segments.add(segment(4, "a"));
        LogSegment earlier = segment(2);
        LogSegment same = LogSegment.open(Files.createDirectories(dir.resolve("other")), 4, MappedStores.detect());
        try {
            assertThatThrownBy(() -> segments.add(earlier)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> segments.add(same)).isInstanceOf(IllegalArgumentException.class);
        } finally {
            earlier.close();
            same.close();
        }
        assertThat(segments.baseOffsets()).containsExactly(4L);
    }

    @Test
    void shouldSelectTheSegmentsThatMayHoldAnOffsetRange() throws IOException {
        threeSegments();

        assertThat(baseOffsetsOf(segments.values(3, 6))).as("from inside a segment").containsExactly(2L, 5L);
        assertThat(baseOffsetsOf(segments.values(2, 5))).as("to is exclusive").containsExactly(2L);
        assertThat(baseOffsetsOf(segments.values(1, 2))).containsExactly(0L);
        assertThat(baseOffsetsOf(segments.values(5, Long.MAX_VALUE))).containsExactly(5L);
        assertThat(baseOffsetsOf(segments.values(9, Long.MAX_VALUE))).as("past the end: the active segment")
                .containsExactly(5L);
        assertThat(segments.values(3, 3)).isEmpty();
        assertThatThrownBy(() -> segments.values(4, 3)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldSelectFromTheFirstSegmentWhenTheRangeStartsBelowIt() throws IOException {
        segments.add(segment(10, "a"));
        segments.add(segment(11, "b"));

        assertThat(baseOffsetsOf(segments.values(3, 11))).containsExactly(10L);
        assertThat(baseOffsetsOf(segments.values(3, 12))).containsExactly(10L, 11L);
    }

    @Test
    void shouldSumTheBytesOfEverySegment() throws IOException {
        threeSegments();

        long expected = 0;
        for (LogSegment segment : segments.values()) {
            expected += segment.size();
        }
        assertThat(segments.activeSegment().size()).isPositive();
        assertThat(segments.sizeInBytes()).isEqualTo(expected)
                .isEqualTo(batchBytes("a,b") + batchBytes("c,d") + batchBytes("e") + batchBytes("f"));
    }

    private static int batchBytes(String values) {
        return MemoryRecords.withRecords(Compression.NONE, simple(NOW, values.split(","))).sizeInBytes();
    }

    @Test
    void shouldDeleteOnlySegmentsWhollyBelowAnOffset() throws IOException {
        threeSegments();

        segments.deleteSegmentsBelow(1);
        assertThat(segments.baseOffsets()).as("offset 1 is still in segment 0").containsExactly(0L, 2L, 5L);

        segments.deleteSegmentsBelow(2);
        assertThat(segments.baseOffsets()).containsExactly(2L, 5L);
        assertThat(Files.exists(LogFileUtils.logFile(dir, 0))).isFalse();
        assertThat(Files.exists(LogFileUtils.offsetIndexFile(dir, 0))).isFalse();
        assertThat(Files.exists(LogFileUtils.timeIndexFile(dir, 0))).isFalse();
        assertThat(Files.exists(LogFileUtils.logFile(dir, 2))).isTrue();

        segments.deleteSegmentsBelow(100);
        assertThat(segments.baseOffsets()).as("the active segment stays").containsExactly(5L);
        assertThat(Files.exists(LogFileUtils.logFile(dir, 5))).isTrue();
    }

    @Test
    void shouldTruncateToWholeBatchesAcrossSegments() throws IOException {
        threeSegments();

        segments.truncateTo(4, INDEX_INTERVAL_BYTES);

        assertThat(segments.baseOffsets()).containsExactly(0L, 2L);
        assertThat(Files.exists(LogFileUtils.logFile(dir, 5))).isFalse();
        assertThat(segments.activeSegment().nextOffset()).as("offset 4 was a batch of its own").isEqualTo(4L);
        assertThat(values(segments.activeSegment().read(2, Integer.MAX_VALUE, Long.MAX_VALUE, true).orElseThrow()))
                .containsExactly("2:c", "3:d");

        segments.truncateTo(3, INDEX_INTERVAL_BYTES);
        assertThat(segments.activeSegment().nextOffset()).as("a batch is never cut").isEqualTo(2L);
        assertThat(segments.baseOffsets()).as("the emptied segment stays active").containsExactly(0L, 2L);

        segments.truncateTo(0, INDEX_INTERVAL_BYTES);
        assertThat(segments.baseOffsets()).containsExactly(0L);
        assertThat(segments.activeSegment().nextOffset()).isZero();
        assertThat(segments.sizeInBytes()).isZero();
    }

    @Test
    void shouldRefuseToTruncateBelowTheFirstSegment() throws IOException {
        segments.add(segment(10, "a"));

        assertThatThrownBy(() -> segments.truncateTo(9, INDEX_INTERVAL_BYTES)).isInstanceOf(IllegalArgumentException.class);
        assertThat(segments.baseOffsets()).containsExactly(10L);
        assertThat(segments.activeSegment().nextOffset()).isEqualTo(11L);
    }

    @Test
    void shouldDeleteEverySegmentSoTheLogCanStartAgainAtAnyOffset() throws IOException {
        threeSegments();

        segments.deleteAll();

        assertThat(segments.isEmpty()).isTrue();
        try (var files = Files.list(dir)) {
            assertThat(files.toList()).isEmpty();
        }
        segments.add(segment(2, "x"));
        assertThat(segments.baseOffsets()).as("a base offset that existed before").containsExactly(2L);
        assertThat(values(segments.activeSegment().read(2, Integer.MAX_VALUE, Long.MAX_VALUE, true).orElseThrow()))
                .containsExactly("2:x");
    }

    @Test
    void shouldCloseEverySegment() throws IOException {
        threeSegments();

        segments.close();

        for (LogSegment segment : segments.values()) {
            assertThatThrownBy(() -> segment.read(segment.baseOffset(), 100, Long.MAX_VALUE, true))
                    .as("%s", segment).isInstanceOf(IOException.class);
        }
    }
}
