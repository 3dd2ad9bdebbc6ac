package dev.samsa.log;

import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.errors.InvalidTimestampException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.UnknownServerException;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.utils.internals.BufferSupplier;
import org.apache.kafka.common.utils.internals.CloseableIterator;

/**
 * The checks Kafka's {@code UnifiedLog.analyzeAndValidateRecords} and {@code LogValidator} make
 * on records a client produces, before any offset is assigned. Each failure is the exception
 * Kafka answers with, so the client sees the same error code.
 */
final class LogValidator {

    /** A batch that passed, with the largest timestamp of its records. */
    record ValidBatch(MutableRecordBatch batch, long maxTimestamp) {
    }

    /** The batches of a produce request that passed, and the bytes they span from the start. */
    record ValidRecords(List<ValidBatch> batches, int validBytes, long recordCount) {
    }

    private LogValidator() {
    }

    /**
     * Validates every batch; the trailing bytes of a partial batch are ignored, as Kafka trims them.
     *
     * @throws InvalidRecordException if a batch is not magic v2, is a control batch, has no records, has
     *         a count or offset deltas that disagree with its header, a producer id without a sequence,
     *         or a record without a key on a compacted topic, or a base offset other than 0
     * @throws CorruptRecordException if a CRC does not match or there is no whole batch
     * @throws RecordTooLargeException if a batch is larger than {@code max.message.bytes}
     * @throws RecordBatchTooLargeException if a batch is larger than {@code segment.bytes}
     * @throws InvalidTimestampException if a create time is further from now than the topic allows
     */
    static ValidRecords throwIfInvalid(MemoryRecords records, LogConfig config, long nowMs, String partition) {
        List<ValidBatch> valid = new ArrayList<>();
        int validBytes = 0;
        long recordCount = 0;
        try {
            for (MutableRecordBatch batch : records.batches()) {
                throwIfInvalidBatch(batch, config, partition);
                long maxTimestamp = throwIfInvalidRecords(batch, config, nowMs, partition);
                valid.add(new ValidBatch(batch, maxTimestamp));
                validBytes += batch.sizeInBytes();
                recordCount += batch.countOrNull();
            }
        } catch (ApiException e) {
            throw e;
        } catch (RuntimeException e) {
            // kafka-clients' readers meet the client's bytes with plain exceptions (an unknown compression id, a
            // batch length near 2^31); Kafka answers those UNKNOWN_SERVER_ERROR, and so does this, as the client's error.
            throw new UnknownServerException("Records sent to " + partition + " cannot be read: " + e);
        }
        if (valid.isEmpty()) {
            throw new CorruptRecordException("The produce request to " + partition + " holds no whole record batch"
                    + " (" + records.sizeInBytes() + " bytes).");
        }
        return new ValidRecords(List.copyOf(valid), validBytes, recordCount);
    }

    private static void throwIfInvalidBatch(MutableRecordBatch batch, LogConfig config, String partition) {
        if (batch.magic() != RecordBatch.MAGIC_VALUE_V2) {
            throw new InvalidRecordException("Record batch with magic " + batch.magic() + " sent to " + partition
                    + " is not supported; only magic v2 is.");
        }
        if (batch.baseOffset() != 0) {
            throw new InvalidRecordException("The baseOffset of the record batch in the append to " + partition
                    + " should be 0, but it is " + batch.baseOffset());
        }
        if (batch.sizeInBytes() > config.maxMessageBytes()) {
            throw new RecordTooLargeException("The record batch size in the append to " + partition + " is "
                    + batch.sizeInBytes() + " bytes which exceeds the maximum configured value of "
                    + config.maxMessageBytes() + ".");
        }
        if (batch.sizeInBytes() > config.segmentBytes()) {
            throw new RecordBatchTooLargeException("The record batch size in the append to " + partition + " is "
                    + batch.sizeInBytes() + " bytes which exceeds the segment size of " + config.segmentBytes() + ".");
        }
        try {
            batch.ensureValid();
        } catch (CorruptRecordException e) {
            throw new CorruptRecordException("Record batch sent to " + partition + " is corrupt: " + e.getMessage(), e);
        }
        if (batch.isControlBatch()) {
            throw new InvalidRecordException("Clients may not send control batches, but one was sent to " + partition + ".");
        }
        Integer count = batch.countOrNull();
        if (count == null || count <= 0 || count != batch.lastOffset() - batch.baseOffset() + 1) {
            throw new InvalidRecordException("Record batch sent to " + partition + " has " + count
                    + " records but its last offset delta is " + (batch.lastOffset() - batch.baseOffset())
                    + "; the record count must be the last offset delta + 1.");
        }
        if (batch.hasProducerId() && batch.baseSequence() < 0) {
            throw new InvalidRecordException("Invalid sequence number " + batch.baseSequence()
                    + " in record batch with producerId " + batch.producerId() + " sent to " + partition + ".");
        }
    }

    /** @return the largest record timestamp, the batch's maximum for Kafka */
    private static long throwIfInvalidRecords(MutableRecordBatch batch, LogConfig config, long nowMs, String partition) {
        long maxTimestamp = RecordBatch.NO_TIMESTAMP;
        int expectedDelta = 0;
        try (CloseableIterator<Record> records = batch.streamingIterator(BufferSupplier.NO_CACHING)) {
            while (records.hasNext()) {
                Record record = records.next();
                if (record.offset() != batch.baseOffset() + expectedDelta) {
                    throw new InvalidRecordException("Record " + expectedDelta + " of a batch sent to " + partition
                            + " has offset delta " + (record.offset() - batch.baseOffset())
                            + "; inner offset deltas must be consecutive from 0.");
                }
                if (config.compact() && !record.hasKey()) {
                    throw new InvalidRecordException("Compacted topic cannot accept message without key in topic"
                            + " partition " + partition + ".");
                }
                if (config.timestampType() == TimestampType.CREATE_TIME) {
                    throwIfTimestampOutOfRange(record, config, nowMs, partition);
                }
                maxTimestamp = Math.max(maxTimestamp, record.timestamp());
                expectedDelta++;
            }
        } catch (KafkaException e) {
            if (e instanceof ApiException) {
                throw e;
            }
            throw new CorruptRecordException("Records of a batch sent to " + partition + " cannot be read: "
                    + e.getMessage(), e);
        }
        if (expectedDelta != batch.countOrNull()) {
            throw new InvalidRecordException("Record batch sent to " + partition + " declares " + batch.countOrNull()
                    + " records but holds " + expectedDelta + ".");
        }
        return maxTimestamp;
    }

    private static void throwIfTimestampOutOfRange(Record record, LogConfig config, long nowMs, String partition) {
        long earliest = saturatedSubtract(nowMs, config.messageTimestampBeforeMaxMs());
        long latest = saturatedAdd(nowMs, config.messageTimestampAfterMaxMs());
        if (record.timestamp() < earliest || record.timestamp() > latest) {
            throw new InvalidTimestampException("Timestamp " + record.timestamp() + " of message with offset "
                    + record.offset() + " sent to " + partition + " is out of range. The timestamp should be within ["
                    + earliest + ", " + latest + "].");
        }
    }

    private static long saturatedSubtract(long a, long b) {
        long result = a - b;
        return ((a ^ b) & (a ^ result)) < 0 ? Long.MIN_VALUE : result;
    }

    private static long saturatedAdd(long a, long b) {
        long result = a + b;
        return ((a ^ result) & (b ^ result)) < 0 ? Long.MAX_VALUE : result;
    }
}
