package dev.samsa.log;

import static dev.samsa.log.LogTestSupport.NOW;
import static dev.samsa.log.LogTestSupport.batch;
import static dev.samsa.log.LogTestSupport.idempotent;
import static dev.samsa.log.LogTestSupport.readAll;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

import dev.samsa.log.store.MappedStore;
import dev.samsa.log.store.MappedStoreFactory;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Close and reopen, crashes and power losses, with each store implementation. */
class PartitionLogRecoveryTest {

    @TempDir
    Path tmp;

    private Path dir() {
        return tmp.resolve("orders-0");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.samsa.log.LogTestSupport#factories")
    void shouldRestoreRecordsStartOffsetEpochsAndProducersOnReopen(MappedStoreFactory stores) throws IOException {
        LogConfig config = LogConfigs.defaults().withSegmentBytes(batch("a", "b").sizeInBytes() * 2);
        try (PartitionLog log = PartitionLog.open(dir(), config, stores, NOW)) {
            log.appendAsLeader(batch("a", "b"), 1, NOW);
            log.appendAsLeader(batch("c", "d"), 1, NOW);
            log.appendAsLeader(idempotent(7L, (short) 0, 0, "e", "f"), 4, NOW);
            log.appendAsLeader(batch("g"), 4, NOW);
            log.deleteRecordsBefore(5);
        }

        try (PartitionLog log = PartitionLog.open(dir(), config, stores, NOW + 1)) {
            assertThat(log.logStartOffset()).isEqualTo(5);
            assertThat(log.logEndOffset()).isEqualTo(7);
            assertThat(log.segmentBaseOffsets()).containsExactly(4L);
            assertThat(readAll(log, 5)).containsExactly("5:f", "6:g");
            assertThat(log.latestEpoch()).hasValue(4);
            assertThat(log.endOffsetForEpoch(4)).isEqualTo(new EpochEndOffset(4, 7));
            assertThat(log.endOffsetForEpoch(3)).as("epoch 1 is gone with its segment").isEqualTo(new EpochEndOffset(3, 5));
            LogAppendInfo retry = log.appendAsLeader(idempotent(7L, (short) 0, 0, "e", "f"), 4, NOW + 1);
            assertThat(retry.duplicate()).as("producer state rebuilt from the log").isTrue();
            assertThat(retry.firstOffset()).isEqualTo(4);
            assertThat(log.appendAsLeader(batch("h"), 5, NOW + 1).firstOffset()).isEqualTo(7);
        }

        try (PartitionLog log = PartitionLog.open(dir(), config, stores, NOW + 2)) {
            assertThat(readAll(log, 5)).containsExactly("5:f", "6:g", "7:h");
            assertThat(log.maxTimestamp().offset()).isEqualTo(4);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.samsa.log.LogTestSupport#factories")
    void shouldTruncateATornBatchAtTheTail(MappedStoreFactory stores) throws IOException {
        int written;
        try (PartitionLog log = PartitionLog.open(dir(), LogConfigs.defaults(), stores, NOW)) {
            log.appendAsLeader(batch("a", "b"), 0, NOW);
            log.appendAsLeader(batch("c"), 0, NOW);
            written = log.read(0, Integer.MAX_VALUE, Long.MAX_VALUE, true).records().sizeInBytes();
        }
        // A process that died half way through writing a third batch.
        ByteBuffer third = batch("d", "e", "f").buffer();
        third.limit(third.limit() / 2);
        try (MappedStore store = stores.open(LogFileUtils.logFile(dir(), 0))) {
            store.write(written, third);
        }

        try (PartitionLog log = PartitionLog.open(dir(), LogConfigs.defaults(), stores, NOW)) {
            assertThat(log.logEndOffset()).isEqualTo(3);
            assertThat(readAll(log, 0)).containsExactly("0:a", "1:b", "2:c");
            log.appendAsLeader(batch("g"), 0, NOW);
        }
        try (PartitionLog log = PartitionLog.open(dir(), LogConfigs.defaults(), stores, NOW)) {
            assertThat(readAll(log, 0)).containsExactly("0:a", "1:b", "2:c", "3:g");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.samsa.log.LogTestSupport#factories")
    void shouldTruncateAtACorruptBatchAndDropLaterSegments(MappedStoreFactory stores) throws IOException {
        LogConfig config = LogConfigs.defaults().withSegmentBytes(batch("a", "b").sizeInBytes() * 2);
        try (PartitionLog log = PartitionLog.open(dir(), config, stores, NOW)) {
            log.appendAsLeader(batch("a", "b"), 0, NOW);
            log.appendAsLeader(batch("c", "d"), 0, NOW);
            log.appendAsLeader(batch("e", "f"), 0, NOW);
            assertThat(log.segmentBaseOffsets()).containsExactly(0L, 4L);
        }
        // Flip a byte inside the second batch's records, so its CRC no longer matches.
        int first = batch("a", "b").sizeInBytes();
        try (MappedStore store = stores.open(LogFileUtils.logFile(dir(), 0))) {
            store.write(first + first - 3, ByteBuffer.wrap(new byte[] {0x7f}));
        }

        try (PartitionLog log = PartitionLog.open(dir(), config, stores, NOW)) {
            assertThat(log.logEndOffset()).isEqualTo(2);
            assertThat(log.segmentBaseOffsets()).as("the next segment no longer follows").containsExactly(0L);
            assertThat(readAll(log, 0)).containsExactly("0:a", "1:b");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.samsa.log.LogTestSupport#factories")
    void shouldLoseOnlyUnflushedBatchesOnPowerLoss(MappedStoreFactory stores) throws IOException {
        PartitionLog log = PartitionLog.open(dir(), LogConfigs.defaults(), stores, NOW);
        log.appendAsLeader(batch("a", "b"), 0, NOW);
        log.flush(NOW + 5);
        log.appendAsLeader(batch("c", "d"), 0, NOW);
        assertThat(log.flushedOffset()).isEqualTo(2);
        assertThat(log.lastFlushMs()).isEqualTo(NOW + 5);

        // Keep 20 bytes of the unflushed batch: torn in the middle of its header.
        log.closeWithPowerLoss(20);

        try (PartitionLog reopened = PartitionLog.open(dir(), LogConfigs.defaults(), stores, NOW)) {
            assertThat(reopened.logEndOffset()).isEqualTo(2);
            assertThat(readAll(reopened, 0)).containsExactly("0:a", "1:b");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.samsa.log.LogTestSupport#factories")
    void shouldStartEmptyAtTheCheckpointWhenPowerLossTookEverythingAboveIt(MappedStoreFactory stores) throws IOException {
        PartitionLog log = PartitionLog.open(dir(), LogConfigs.defaults(), stores, NOW);
        log.appendAsLeader(batch("a", "b", "c"), 0, NOW);
        log.deleteRecordsBefore(2);
        log.closeWithPowerLoss(0);

        try (PartitionLog reopened = PartitionLog.open(dir(), LogConfigs.defaults(), stores, NOW)) {
            assertThat(reopened.logStartOffset()).isEqualTo(2);
            assertThat(reopened.logEndOffset()).isEqualTo(2);
            assertThat(reopened.appendAsLeader(batch("d"), 1, NOW).firstOffset()).isEqualTo(2);
        }
    }
}
