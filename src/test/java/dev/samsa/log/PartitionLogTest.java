package dev.samsa.log;

import static dev.samsa.log.LogTestSupport.NOW;
import static dev.samsa.log.LogTestSupport.batch;
import static dev.samsa.log.LogTestSupport.batchAt;
import static dev.samsa.log.LogTestSupport.readAll;
import static dev.samsa.log.LogTestSupport.values;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

import dev.samsa.log.store.MappedStores;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.errors.InvalidTimestampException;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.record.internal.DefaultRecordBatch;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.AfterEach;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PartitionLogTest {

    @TempDir
    Path tmp;

    private PartitionLog log;

    @AfterEach
    void closeLog() {
        if (log != null) {
            log.close();
        }
    }

    private PartitionLog open(LogConfig config) throws IOException {
        log = PartitionLog.open(tmp.resolve("orders-0"), config, MappedStores.detect(), NOW);
        return log;
    }

    @Test
    void shouldReadBackWhatWasAppendedWithAssignedOffsets() throws IOException {
        open(LogConfigs.defaults());

        LogAppendInfo first = log.appendAsLeader(batch("a", "b"), 3, NOW);
        LogAppendInfo second = log.appendAsLeader(batch("c"), 3, NOW);

        assertThat(first).isEqualTo(new LogAppendInfo(0, 1, -1, 0, false));
        assertThat(second).isEqualTo(new LogAppendInfo(2, 2, -1, 0, false));
        assertThat(log.logEndOffset()).isEqualTo(3);
        MemoryRecords records = log.read(0, Integer.MAX_VALUE, Long.MAX_VALUE, false).records();
        assertThat(values(records)).containsExactly("0:a", "1:b", "2:c");
        assertThat(records.batches()).allSatisfy(b -> assertThat(b.partitionLeaderEpoch()).isEqualTo(3));
        assertThat(log.read(3, 1000, Long.MAX_VALUE, true).records().sizeInBytes()).isZero();
    }

    @Test
    void shouldReturnTheWholeBatchWhenFetchingFromTheMiddleOfIt() throws IOException {
        open(LogConfigs.defaults());
        log.appendAsLeader(batch("a", "b", "c"), 0, NOW);
        log.appendAsLeader(batch("d", "e"), 0, NOW);

        MemoryRecords records = log.read(1, Integer.MAX_VALUE, Long.MAX_VALUE, false).records();

        assertThat(values(records)).as("the batch holding offset 1 starts at 0").startsWith("0:a", "1:b", "2:c");
        assertThat(values(log.read(4, Integer.MAX_VALUE, Long.MAX_VALUE, false).records())).containsExactly("3:d", "4:e");
    }

    @Test
    void shouldStopAtMaxBytesButReturnOneWholeBatchWhenMinOneBatch() throws IOException {
        open(LogConfigs.defaults());
        log.appendAsLeader(batch("a", "b"), 0, NOW);
        log.appendAsLeader(batch("c", "d"), 0, NOW);
        int firstBatchSize = log.read(0, Integer.MAX_VALUE, 2, false).records().sizeInBytes();

        assertThat(values(log.read(0, firstBatchSize, Long.MAX_VALUE, false).records())).containsExactly("0:a", "1:b");
        assertThat(values(log.read(0, firstBatchSize + 1, Long.MAX_VALUE, false).records())).containsExactly("0:a", "1:b");
        assertThat(log.read(0, 10, Long.MAX_VALUE, false).records().sizeInBytes()).isZero();
        assertThat(values(log.read(0, 10, Long.MAX_VALUE, true).records())).containsExactly("0:a", "1:b");
    }

    @Test
    void shouldNotReturnBatchesReachingMaxOffsetExclusive() throws IOException {
        open(LogConfigs.defaults());
        log.appendAsLeader(batch("a", "b"), 0, NOW);
        log.appendAsLeader(batch("c", "d"), 0, NOW);

        assertThat(values(log.read(0, Integer.MAX_VALUE, 2, true).records())).containsExactly("0:a", "1:b");
        assertThat(values(log.read(0, Integer.MAX_VALUE, 3, true).records())).containsExactly("0:a", "1:b");
        assertThat(log.read(0, Integer.MAX_VALUE, 1, true).records().sizeInBytes())
                .as("minOneBatch never reads past the high watermark").isZero();
    }

    @Test
    void shouldRejectReadsOutsideTheLog() throws IOException {
        open(LogConfigs.defaults());
        log.appendAsLeader(batch("a"), 0, NOW);

        assertThatThrownBy(() -> log.read(2, 100, Long.MAX_VALUE, true)).isInstanceOf(OffsetOutOfRangeException.class);
        log.deleteRecordsBefore(1);
        assertThatThrownBy(() -> log.read(0, 100, Long.MAX_VALUE, true)).isInstanceOf(OffsetOutOfRangeException.class);
    }

    @Test
    void shouldRollWhenTheSegmentWouldExceedSegmentBytes() throws IOException {
        int batchSize = batch("a", "b").sizeInBytes();
        open(LogConfigs.defaults().withSegmentBytes(batchSize * 2));

        log.appendAsLeader(batch("a", "b"), 0, NOW);
        log.appendAsLeader(batch("c", "d"), 0, NOW);
        log.appendAsLeader(batch("e", "f"), 0, NOW);

        assertThat(log.segmentBaseOffsets()).containsExactly(0L, 4L);
        assertThat(Files.exists(tmp.resolve("orders-0/00000000000000000004.log"))).isTrue();
        assertThat(readAll(log, 0)).containsExactly("0:a", "1:b", "2:c", "3:d", "4:e", "5:f");
        log.close();
        assertThat(Files.exists(tmp.resolve("orders-0/00000000000000000004.index"))).as("written on close").isTrue();
        assertThat(Files.exists(tmp.resolve("orders-0/00000000000000000004.timeindex"))).isTrue();
    }

    @Test
    void shouldCreateNoFileNorDirectoryBeforeTheFirstAppend() throws IOException {
        Path dir = tmp.resolve("orders-0");
        open(LogConfigs.defaults());
        log.close();
        open(LogConfigs.defaults());

        assertThat(dir).as("a partition nobody wrote to, opened twice").doesNotExist();
        assertThat(log.logEndOffset()).isZero();

        log.appendAsLeader(batch("a"), 0, NOW);

        assertThat(listFiles(dir)).containsExactly("00000000000000000000.log");
        log.close();
        assertThat(listFiles(dir)).as("the indexes are written on close").containsExactlyInAnyOrder(
                "00000000000000000000.log", "00000000000000000000.index", "00000000000000000000.timeindex");
    }

    @Test
    void shouldHaveTheFilesOfAPreparedLogMadeBeforeItsFirstAppendAndKeepTheLogEmpty() throws IOException {
        Path dir = tmp.resolve("orders-0");
        open(LogConfigs.defaults());
        log.prepareFilesInBackground();
        Awaitility.await().atMost(Duration.ofSeconds(10))
                .until(() -> Files.exists(dir.resolve("00000000000000000000.log")));

        log.appendAsLeader(batch("a"), 0, NOW);
        assertThat(readAll(log, 0)).containsExactly("0:a");
        log.close();
        open(LogConfigs.defaults());
        assertThat(readAll(log, 0)).as("after a reopen").containsExactly("0:a");
    }

    @Test
    void shouldReopenAPreparedLogNobodyWroteToAsEmptyAndDeleteItsDirectory() throws IOException {
        Path dir = tmp.resolve("orders-0");
        open(LogConfigs.defaults());
        log.prepareFilesInBackground();
        log.close();
        open(LogConfigs.defaults());
        assertThat(log.logEndOffset()).isZero();
        log.appendAsLeader(batch("a"), 0, NOW);
        assertThat(readAll(log, 0)).containsExactly("0:a");

        log.delete();
        assertThat(dir).as("whether or not the background thread had made the files").doesNotExist();
    }

    @Test
    void shouldWriteTheIndexFilesInKafkasLayoutWhenFlushedAndCutThemWhenTruncated() throws IOException {
        Path dir = tmp.resolve("orders-0");
        open(LogConfigs.defaults().withIndexIntervalBytes(1));
        log.appendAsLeader(batchAt(1_000, "a"), 0, NOW);
        int second = batchAt(1_000, "a").sizeInBytes();
        log.appendAsLeader(batchAt(2_000, "b"), 0, NOW);
        log.appendAsLeader(batchAt(3_000, "c"), 0, NOW);
        log.flush(NOW);

        ByteBuffer index = ByteBuffer.wrap(Files.readAllBytes(dir.resolve("00000000000000000000.index")));
        ByteBuffer timeIndex = ByteBuffer.wrap(Files.readAllBytes(dir.resolve("00000000000000000000.timeindex")));
        assertThat(index.remaining()).as("(relative offset, position) of batches 1 and 2").isEqualTo(16);
        assertThat(index.getInt(0)).isEqualTo(1);
        assertThat(index.getInt(4)).isEqualTo(second);
        assertThat(timeIndex.remaining()).as("(timestamp, relative offset) for each new largest timestamp").isEqualTo(36);
        assertThat(timeIndex.getLong(24)).isEqualTo(3_000);
        assertThat(timeIndex.getInt(32)).isEqualTo(2);

        log.truncateTo(1);
        log.close();

        assertThat(Files.size(dir.resolve("00000000000000000000.index"))).isZero();
        assertThat(Files.size(dir.resolve("00000000000000000000.timeindex"))).isEqualTo(12);
    }

    @Test
    void shouldRollWhenTheSegmentIsOlderThanSegmentMs() throws IOException {
        open(LogConfigs.defaults().withSegmentMs(1000));

        log.appendAsLeader(batch("a"), 0, NOW);
        log.appendAsLeader(batch("b"), 0, NOW + 999);
        assertThat(log.segmentBaseOffsets()).as("999 ms after the first append").containsExactly(0L);
        log.appendAsLeader(batch("c"), 0, NOW + 1000);
        log.appendAsLeader(batch("d"), 0, NOW + 1500);

        assertThat(log.segmentBaseOffsets()).as("rolled exactly at segment.ms, timed from the first append")
                .containsExactly(0L, 2L);
        assertThat(readAll(log, 0)).containsExactly("0:a", "1:b", "2:c", "3:d");
    }

    @Test
    void shouldTimeSegmentMsFromTheFirstBatchThatSurvivesATruncation() throws IOException {
        open(LogConfigs.defaults().withSegmentMs(1000));
        log.appendAsFollower(MemoryRecords.withRecords(0, Compression.NONE, LogTestSupport.simple(NOW, "a")), NOW);
        log.appendAsFollower(MemoryRecords.withRecords(1, Compression.NONE, LogTestSupport.simple(NOW, "b")), NOW + 900);

        log.truncateTo(1);
        log.appendAsFollower(MemoryRecords.withRecords(1, Compression.NONE, LogTestSupport.simple(NOW, "c")), NOW + 1000);

        assertThat(log.segmentBaseOffsets()).as("offset 0 was appended at NOW, so NOW + 1000 rolls")
                .containsExactly(0L, 1L);
        assertThat(readAll(log, 0)).containsExactly("0:a", "1:c");
    }

    @Test
    void shouldFindTheFirstRecordAtOrAfterATimestamp() throws IOException {
        open(LogConfigs.defaults().withIndexIntervalBytes(1).withSegmentBytes(300));
        log.appendAsLeader(MemoryRecords.withRecords(Compression.NONE,
                new SimpleRecord(NOW + 10, "k".getBytes(), "a".getBytes()),
                new SimpleRecord(NOW + 30, "k".getBytes(), "b".getBytes()),
                new SimpleRecord(NOW + 20, "k".getBytes(), "c".getBytes())), 1, NOW);
        log.appendAsLeader(batchAt(NOW + 25, "d"), 2, NOW);
        log.appendAsLeader(batchAt(NOW + 40, "e"), 2, NOW);
        log.appendAsLeader(batchAt(NOW + 40, "f"), 2, NOW);

        assertThat(log.offsetForTimestamp(NOW)).contains(new TimestampAndOffset(NOW + 10, 0, 1));
        assertThat(log.offsetForTimestamp(NOW + 15)).contains(new TimestampAndOffset(NOW + 30, 1, 1));
        assertThat(log.offsetForTimestamp(NOW + 31)).contains(new TimestampAndOffset(NOW + 40, 4, 2));
        assertThat(log.offsetForTimestamp(NOW + 41)).isEmpty();
        assertThat(log.maxTimestamp()).as("first record with the largest timestamp").isEqualTo(new TimestampAndOffset(NOW + 40, 4, 2));
    }

    @Test
    void shouldStampLogAppendTimeOnEveryRecord() throws IOException {
        open(LogConfigs.defaults().withTimestampType(TimestampType.LOG_APPEND_TIME));

        LogAppendInfo info = log.appendAsLeader(batchAt(5, "a", "b"), 0, NOW + 7);

        assertThat(info.logAppendTime()).isEqualTo(NOW + 7);
        RecordBatch stored = log.read(0, Integer.MAX_VALUE, Long.MAX_VALUE, true).records().batches().iterator().next();
        assertThat(stored.timestampType()).isEqualTo(TimestampType.LOG_APPEND_TIME);
        assertThat(stored.maxTimestamp()).isEqualTo(NOW + 7);
        stored.ensureValid();
        assertThat(log.offsetForTimestamp(NOW)).contains(new TimestampAndOffset(NOW + 7, 0, 0));
        assertThat(log.maxTimestamp()).isEqualTo(new TimestampAndOffset(NOW + 7, 0, 0));
    }

    @Test
    void shouldAnswerNoneForTheMaxTimestampOfAnEmptyLog() throws IOException {
        open(LogConfigs.defaults());

        assertThat(log.maxTimestamp()).isEqualTo(TimestampAndOffset.NONE);
        assertThat(log.offsetForTimestamp(0)).isEmpty();
    }

    @Test
    void shouldRejectABatchWithABadCrc() throws IOException {
        open(LogConfigs.defaults());
        MemoryRecords records = batch("a");
        records.buffer().put(DefaultRecordBatch.RECORD_BATCH_OVERHEAD + 2, (byte) 0x55);

        assertThatThrownBy(() -> log.appendAsLeader(records, 0, NOW)).isInstanceOf(CorruptRecordException.class)
                .hasMessageContaining("orders-0");
        assertThat(log.logEndOffset()).isZero();
    }

    @Test
    void shouldRejectABatchLargerThanMaxMessageBytes() throws IOException {
        MemoryRecords records = batch("a", "b", "c");
        open(LogConfigs.defaults().withMaxMessageBytes(records.sizeInBytes() - 1));

        assertThatThrownBy(() -> log.appendAsLeader(records, 0, NOW)).isInstanceOf(RecordTooLargeException.class);
    }

    @Test
    void shouldNameEveryRecordWithoutKeyOnACompactedTopicAndAppendNothing() throws IOException {
        open(LogConfigs.defaults().withCompact(true));
        MemoryRecords records = MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(NOW, "k".getBytes(), "a".getBytes()),
                new SimpleRecord(NOW, null, "b".getBytes()), new SimpleRecord(NOW, "k".getBytes(), "c".getBytes()),
                new SimpleRecord(NOW, null, "d".getBytes()));
        String reason = "Compacted topic cannot accept message without key in topic partition orders-0";

        assertThatThrownBy(() -> log.appendAsLeader(records, 0, NOW)).isInstanceOfSatisfying(RecordValidationException.class, e -> {
            assertThat(e.recordErrors()).containsExactly(new RecordValidationException.RecordError(1, reason),
                    new RecordValidationException.RecordError(3, reason));
            assertThat(e.invalidException()).isInstanceOf(InvalidRecordException.class).hasMessage("One or more records have"
                    + " been rejected due to 2 record errors in total, and only showing the first three errors at most: ["
                    + "RecordError(batchIndex=1, message='" + reason + "'), RecordError(batchIndex=3, message='" + reason + "')]");
        });
        assertThat(log.logEndOffset()).isZero();
    }

    @Test
    void shouldRejectOldMagic() throws IOException {
        open(LogConfigs.defaults());
        MemoryRecords records = MemoryRecords.withRecords(RecordBatch.MAGIC_VALUE_V1, Compression.NONE,
                new SimpleRecord(NOW, "k".getBytes(), "v".getBytes()));

        assertThatThrownBy(() -> log.appendAsLeader(records, 0, NOW)).isInstanceOf(InvalidRecordException.class);
    }

    @Test
    void shouldRejectTimestampsTooFarFromNow() throws IOException {
        open(LogConfigs.defaults().withMessageTimestampBeforeMaxMs(1000).withMessageTimestampAfterMaxMs(1000));

        log.appendAsLeader(batchAt(NOW - 1000, "exactly at the bound"), 0, NOW);
        log.appendAsLeader(batchAt(NOW + 1000, "exactly at the other bound"), 0, NOW);
        for (long timestamp : new long[] {NOW - 1001, NOW + 1001}) {
            assertThatThrownBy(() -> log.appendAsLeader(batchAt(timestamp, "a", "b"), 0, NOW))
                    .isInstanceOfSatisfying(RecordValidationException.class, e -> {
                        assertThat(e.invalidException()).isInstanceOf(InvalidTimestampException.class)
                                .hasMessage("One or more records have been rejected due to invalid timestamp");
                        assertThat(e.recordErrors()).extracting(RecordValidationException.RecordError::message).containsExactly(
                                "Timestamp " + timestamp + " of message with offset 0 is out of range. The timestamp should be within ["
                                        + (NOW - 1000) + ", " + (NOW + 1000) + "]",
                                "Timestamp " + timestamp + " of message with offset 1 is out of range. The timestamp should be within ["
                                        + (NOW - 1000) + ", " + (NOW + 1000) + "]");
                    });
        }
        assertThat(log.logEndOffset()).isEqualTo(2);
    }

    @Test
    void shouldAcceptARecordWithoutTimestampWhateverTheBounds() throws IOException {
        open(LogConfigs.defaults().withMessageTimestampBeforeMaxMs(0).withMessageTimestampAfterMaxMs(0));

        log.appendAsLeader(batchAt(RecordBatch.NO_TIMESTAMP, "no timestamp"), 0, NOW);

        assertThat(log.logEndOffset()).as("Kafka checks only the timestamps a record has").isEqualTo(1);
    }

    @Test
    void shouldRefuseEveryRecordOfABatchAProducerMarkedLogAppendTime() throws IOException {
        open(LogConfigs.defaults().withTimestampType(TimestampType.LOG_APPEND_TIME));
        MemoryRecordsBuilder builder = MemoryRecords.builder(ByteBuffer.allocate(1024), RecordBatch.MAGIC_VALUE_V2,
                Compression.NONE, TimestampType.LOG_APPEND_TIME, 0L, NOW);
        builder.append(NOW, "k".getBytes(), "vv".getBytes());
        builder.append(NOW, null, "vvv".getBytes());

        assertThatThrownBy(() -> log.appendAsLeader(builder.build(), 0, NOW)).isInstanceOfSatisfying(RecordValidationException.class, e -> {
            assertThat(e.invalidException()).isInstanceOf(InvalidTimestampException.class);
            assertThat(e.recordErrors()).containsExactly(
                    new RecordValidationException.RecordError(0, "Invalid timestamp type in message DefaultRecord(offset=0, timestamp="
                            + NOW + ", key=1 bytes, value=2 bytes). Producer should not set timestamp type to LogAppendTime."),
                    new RecordValidationException.RecordError(1, "Invalid timestamp type in message DefaultRecord(offset=1, timestamp="
                            + NOW + ", key=0 bytes, value=3 bytes). Producer should not set timestamp type to LogAppendTime."));
        });
    }

    @Test
    void shouldKeepCompressedBatchesAsTheClientSentThem() throws IOException {
        open(LogConfigs.defaults());
        MemoryRecords records = MemoryRecords.withRecords(Compression.gzip().build(), LogTestSupport.simple(NOW, "a", "b"));

        log.appendAsLeader(records, 0, NOW);

        MutableRecordBatch stored = log.read(0, Integer.MAX_VALUE, Long.MAX_VALUE, true).records().batches().iterator().next();
        assertThat(stored.compressionType().name).isEqualTo("gzip");
        assertThat(values(log.read(0, Integer.MAX_VALUE, Long.MAX_VALUE, true).records())).containsExactly("0:a", "1:b");
    }

    @Test
    void shouldFlushWhenUnflushedMessagesReachFlushMessages() throws IOException {
        open(LogConfigs.defaults().withFlushMessages(3));

        log.appendAsLeader(batch("a", "b"), 0, NOW + 1);
        assertThat(log.unflushedMessages()).isEqualTo(2);
        assertThat(log.flushedOffset()).isZero();
        log.appendAsLeader(batch("c"), 0, NOW + 2);

        assertThat(log.flushedOffset()).isEqualTo(3);
        assertThat(log.unflushedMessages()).isZero();
        assertThat(log.lastFlushMs()).isEqualTo(NOW + 2);
    }

    @Test
    void shouldDropWholeBatchesFromTheTruncationOffsetOn() throws IOException {
        open(LogConfigs.defaults().withSegmentBytes(batch("a", "b").sizeInBytes()));
        log.appendAsLeader(batch("a", "b"), 1, NOW);
        log.appendAsLeader(batch("c", "d"), 2, NOW);
        log.appendAsLeader(batch("e", "f"), 3, NOW);
        assertThat(log.segmentBaseOffsets()).containsExactly(0L, 2L, 4L);

        log.truncateTo(2);

        assertThat(log.logEndOffset()).isEqualTo(2);
        assertThat(log.segmentBaseOffsets()).containsExactly(0L, 2L);
        assertThat(log.latestEpoch()).hasValue(1);
        assertThat(readAll(log, 0)).containsExactly("0:a", "1:b");
        log.appendAsLeader(batch("x"), 4, NOW);
        assertThat(readAll(log, 0)).containsExactly("0:a", "1:b", "2:x");
    }

    @Test
    void shouldDropTheWholeBatchWhenTruncatingInsideIt() throws IOException {
        open(LogConfigs.defaults());
        log.appendAsLeader(batch("a", "b"), 0, NOW);
        log.appendAsLeader(batch("c", "d", "e"), 0, NOW);

        log.truncateTo(3);

        assertThat(log.logEndOffset()).as("batches are never cut").isEqualTo(2);
        assertThat(readAll(log, 0)).containsExactly("0:a", "1:b");
    }

    @Test
    void shouldAnswerEndOffsetsForLeaderEpochsAsKafka() throws IOException {
        open(LogConfigs.defaults());
        assertThat(log.endOffsetForEpoch(0)).isEqualTo(EpochEndOffset.UNDEFINED);
        log.appendAsLeader(batch("a", "b"), 2, NOW);   // epoch 2 starts at 0
        log.appendAsLeader(batch("c"), 2, NOW);
        log.appendAsLeader(batch("d"), 5, NOW);        // epoch 5 starts at 3
        log.appendAsLeader(batch("e"), 7, NOW);        // epoch 7 starts at 4

        assertThat(log.latestEpoch()).hasValue(7);
        assertThat(log.endOffsetForEpoch(7)).as("latest epoch ends at the log end").isEqualTo(new EpochEndOffset(7, 5));
        assertThat(log.endOffsetForEpoch(5)).isEqualTo(new EpochEndOffset(5, 4));
        assertThat(log.endOffsetForEpoch(6)).as("largest epoch <= 6 is 5").isEqualTo(new EpochEndOffset(5, 4));
        assertThat(log.endOffsetForEpoch(2)).isEqualTo(new EpochEndOffset(2, 3));
        assertThat(log.endOffsetForEpoch(1)).as("older than every epoch").isEqualTo(new EpochEndOffset(1, 0));
        assertThat(log.endOffsetForEpoch(8)).as("newer than every epoch").isEqualTo(EpochEndOffset.UNDEFINED);
        assertThat(log.endOffsetForEpoch(-1)).isEqualTo(EpochEndOffset.UNDEFINED);
    }

    @Test
    void shouldDeleteWholeSegmentsBelowTheNewLogStartOffset() throws IOException {
        open(LogConfigs.defaults().withSegmentBytes(batch("a", "b").sizeInBytes()));
        log.appendAsLeader(batch("a", "b"), 0, NOW);
        log.appendAsLeader(batch("c", "d"), 0, NOW);
        log.appendAsLeader(batch("e", "f"), 0, NOW);

        assertThat(log.deleteRecordsBefore(3)).isEqualTo(3);
        assertThat(log.deleteRecordsBefore(1)).as("never lowered").isEqualTo(3);

        assertThat(log.logStartOffset()).isEqualTo(3);
        assertThat(log.segmentBaseOffsets()).containsExactly(2L, 4L);
        assertThat(Files.exists(tmp.resolve("orders-0/00000000000000000000.log"))).isFalse();
        assertThat(readAll(log, 3)).containsExactly("3:d", "4:e", "5:f");
        assertThatThrownBy(() -> log.deleteRecordsBefore(7)).isInstanceOf(OffsetOutOfRangeException.class);
        assertThat(log.deleteRecordsBefore(6)).as("up to the log end is allowed").isEqualTo(6);
        assertThat(log.read(6, 100, Long.MAX_VALUE, true).records().sizeInBytes()).isZero();
    }

    @Test
    void shouldDeleteTheDirectory() throws IOException {
        open(LogConfigs.defaults());
        log.appendAsLeader(batch("a"), 0, NOW);

        log.delete();

        assertThat(tmp.resolve("orders-0")).doesNotExist();
    }

    @Test
    void shouldAcceptSeveralBatchesInOneAppend() throws IOException {
        open(LogConfigs.defaults());
        ByteBuffer buffer = ByteBuffer.allocate(1024);
        buffer.put(batch("a", "b").buffer()).put(batch("c").buffer()).flip();

        LogAppendInfo info = log.appendAsLeader(MemoryRecords.readableRecords(buffer), 0, NOW);

        assertThat(info.firstOffset()).isZero();
        assertThat(info.lastOffset()).isEqualTo(2);
        assertThat(readAll(log, 0)).containsExactly("0:a", "1:b", "2:c");
    }

    private static List<String> listFiles(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(file -> file.getFileName().toString()).toList();
        }
    }
}
