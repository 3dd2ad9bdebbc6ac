package dev.samsa.log;

import java.util.List;
import java.util.Objects;

import org.apache.kafka.common.errors.ApiException;

/**
 * A batch refused for some of its records, as Kafka's {@code RecordValidationException}: the partition's error
 * ({@link #invalidException()}, INVALID_TIMESTAMP if any record's timestamp is out of range, INVALID_RECORD otherwise,
 * with Kafka's message) and the index and reason of each refused record, which the produce answer carries as
 * {@code record_errors} (KIP-467). Nothing of the batch was appended.
 */
public final class RecordValidationException extends RuntimeException {

    /** One refused record: its index in the batch (from 0) and why; {@code toString} is Kafka's ProduceResponse.RecordError's. */
    public record RecordError(int batchIndex, String message) {

        @Override
        public String toString() {
            return "RecordError(batchIndex=" + batchIndex + ", message=" + (message == null ? "null" : "'" + message + "'") + ")";
        }
    }

    private final ApiException invalidException;
    private final List<RecordError> recordErrors;

    RecordValidationException(ApiException invalidException, List<RecordError> recordErrors) {
        super(invalidException.getMessage(), invalidException, false, false);
        this.invalidException = Objects.requireNonNull(invalidException);
        this.recordErrors = List.copyOf(recordErrors);
    }

    public ApiException invalidException() {
        return invalidException;
    }

    /** In batch order, at least one. */
    public List<RecordError> recordErrors() {
        return recordErrors;
    }
}
