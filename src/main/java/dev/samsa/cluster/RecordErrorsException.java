package dev.samsa.cluster;

import dev.samsa.log.RecordValidationException;
import java.util.List;
import org.apache.kafka.common.errors.ApiException;

/**
 * A leader's append refused for some of its records, as Kafka's ReplicaManager answers a log's
 * {@code RecordValidationException}: the partition's {@link #error()}, whose message Kafka sends as the partition's
 * {@code error_message}; each refused record's batch index and reason, Kafka's {@code record_errors}; and the log
 * start offset, which Kafka answers here where other append errors answer -1. Nothing was appended.
 */
public final class RecordErrorsException extends RuntimeException {

    /** One refused record: its index in the batch (from 0) and Kafka's reason. */
    public record RecordError(int batchIndex, String message) {
    }

    private final ApiException error;
    private final List<RecordError> recordErrors;
    private final long logStartOffset;

    RecordErrorsException(RecordValidationException refused, long logStartOffset) {
        super(refused.getMessage(), refused, false, false);
        this.error = refused.invalidException();
        this.recordErrors = refused.recordErrors().stream().map(e -> new RecordError(e.batchIndex(), e.message())).toList();
        this.logStartOffset = logStartOffset;
    }

    /** INVALID_RECORD or INVALID_TIMESTAMP, with Kafka's message. */
    public ApiException error() {
        return error;
    }

    public List<RecordError> recordErrors() {
        return recordErrors;
    }

    public long logStartOffset() {
        return logStartOffset;
    }
}
