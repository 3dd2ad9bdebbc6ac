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
 * Kafka answers with, so the client sees the same error code; the checks Kafka makes record by
 * record name every refused record ({@link RecordValidationException}).
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
     *         or a base offset other than 0
     * @throws RecordValidationException if records of a batch are refused one by one, as Kafka names them: a record
     *         without a key on a compacted topic, a create time further from now than the topic allows, a batch the
     *         producer marked LogAppendTime
     * @throws CorruptRecordException if a CRC does not match or there is no whole batch
     * @throws RecordTooLargeException if a batch is larger than {@code max.message.bytes}
     * @throws RecordBatchTooLargeException if a batch is larger than {@code segment.bytes}
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
        } catch (ApiException | RecordValidationException e) {
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
        // Kafka's LogValidator.validateBatch, in its order and words: these refuse the batch, not single records.
        long countFromOffsets = batch.lastOffset() - batch.baseOffset() + 1;
        if (countFromOffsets <= 0) {
            throw new InvalidRecordException("Batch has an invalid offset range: [" + batch.baseOffset() + ", "
                    + batch.lastOffset() + "] in topic partition " + partition);
        }
        Integer count = batch.countOrNull();
        if (count == null || count <= 0) {
            throw new InvalidRecordException("Invalid reported count for record batch: " + count
                    + " in topic partition " + partition);
        }
        if (countFromOffsets != count) {
            throw new InvalidRecordException("Inconsistent batch offset range [" + batch.baseOffset() + ", "
                    + batch.lastOffset() + "] and count of records " + count + " in topic partition " + partition);
        }
        if (batch.isControlBatch()) {
            throw new InvalidRecordException("Clients are not allowed to write control records in topic partition " + partition);
        }
        if (batch.hasProducerId() && batch.baseSequence() < 0) {
            throw new InvalidRecordException("Invalid sequence number " + batch.baseSequence()
                    + " in record batch with producerId " + batch.producerId() + " in topic partition " + partition);
        }
    }

    /**
     * Kafka's per-record checks (its {@code LogValidator.validateRecord}): on a compacted topic a record needs a key;
     * otherwise a CreateTime record's timestamp (-1 exempt) must lie within {@code message.timestamp.before.max.ms}
     * before and {@code message.timestamp.after.max.ms} after now, and a producer may not mark a batch LogAppendTime.
     * Every refused record of the batch is named, then the batch is refused as a whole.
     *
     * @return the largest record timestamp, the batch's maximum for Kafka
     * @throws RecordValidationException if any record is refused
     */
    private static long throwIfInvalidRecords(MutableRecordBatch batch, LogConfig config, long nowMs, String partition) {
        long maxTimestamp = RecordBatch.NO_TIMESTAMP;
        int expectedDelta = 0;
        List<ApiRecordError> recordErrors = new ArrayList<>(0);
        // As Kafka's in-place validation: a compressed batch is read without copying out keys and values.
        try (CloseableIterator<Record> records = batch.isCompressed()
                ? batch.skipKeyValueIterator(BufferSupplier.NO_CACHING)
                : batch.streamingIterator(BufferSupplier.NO_CACHING)) {
            while (records.hasNext()) {
                Record record = records.next();
                if (record.offset() != batch.baseOffset() + expectedDelta) {
                    throw new InvalidRecordException("Record " + expectedDelta + " of a batch sent to " + partition
                            + " has offset delta " + (record.offset() - batch.baseOffset())
                            + "; inner offset deltas must be consecutive from 0.");
                }
                ApiRecordError error = validateRecord(batch, record, expectedDelta, config, nowMs, partition);
                if (error != null) {
                    recordErrors.add(error);
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
        throwIfRecordErrors(recordErrors);
        return maxTimestamp;
    }

    /** A refused record and whether it calls for INVALID_TIMESTAMP (Kafka's ApiRecordError), else INVALID_RECORD. */
    private record ApiRecordError(boolean invalidTimestamp, RecordValidationException.RecordError recordError) {
    }

    /** @return the record's error, or null if it passes; one error per record, the key's first */
    private static ApiRecordError validateRecord(RecordBatch batch, Record record, int batchIndex, LogConfig config,
                                                 long nowMs, String partition) {
        if (config.compact() && !record.hasKey()) {
            return new ApiRecordError(false, new RecordValidationException.RecordError(batchIndex,
                    "Compacted topic cannot accept message without key in topic partition " + partition));
        }
        if (config.timestampType() == TimestampType.CREATE_TIME && record.timestamp() != RecordBatch.NO_TIMESTAMP) {
            // Kafka's arithmetic exactly, overflow included, in the check and in the message.
            long before = config.messageTimestampBeforeMaxMs();
            long after = config.messageTimestampAfterMaxMs();
            long timestampDiff = nowMs - record.timestamp();
            if (timestampDiff > before || -1 * timestampDiff > after) {
                return new ApiRecordError(true, new RecordValidationException.RecordError(batchIndex,
                        "Timestamp " + record.timestamp() + " of message with offset " + record.offset()
                                + " is out of range. The timestamp should be within [" + (nowMs - before) + ", "
                                + (nowMs + after) + "]"));
            }
        } else if (batch.timestampType() == TimestampType.LOG_APPEND_TIME) {
            return new ApiRecordError(true, new RecordValidationException.RecordError(batchIndex,
                    "Invalid timestamp type in message " + record + ". Producer should not set timestamp "
                            + "type to LogAppendTime."));
        }
        return null;
    }

    /** Kafka's {@code processRecordErrors}: one invalid timestamp makes the partition's error INVALID_TIMESTAMP. */
    private static void throwIfRecordErrors(List<ApiRecordError> recordErrors) {
        if (recordErrors.isEmpty()) {
            return;
        }
        List<RecordValidationException.RecordError> errors = recordErrors.stream().map(ApiRecordError::recordError).toList();
        if (recordErrors.stream().anyMatch(ApiRecordError::invalidTimestamp)) {
            throw new RecordValidationException(new InvalidTimestampException(
                    "One or more records have been rejected due to invalid timestamp"), errors);
        }
        throw new RecordValidationException(new InvalidRecordException(
                "One or more records have been rejected due to " + errors.size() + " record errors in total, and only"
                        + " showing the first three errors at most: " + errors.subList(0, Math.min(errors.size(), 3))),
                errors);
    }
}
