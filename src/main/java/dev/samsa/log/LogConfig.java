package dev.samsa.log;

import java.util.Objects;

import org.apache.kafka.common.record.TimestampType;

/**
 * The topic-level settings a partition log obeys, named after the Kafka topic configs they come
 * from ({@code segment.bytes}, {@code segment.ms}, {@code max.message.bytes},
 * {@code message.timestamp.type}, {@code flush.messages}, {@code flush.ms},
 * {@code index.interval.bytes}, {@code cleanup.policy} containing {@code compact},
 * {@code message.timestamp.before.max.ms}, {@code message.timestamp.after.max.ms}).
 */
public record LogConfig(
        int segmentBytes,
        long segmentMs,
        int maxMessageBytes,
        TimestampType timestampType,
        long flushMessages,
        long flushMs,
        int indexIntervalBytes,
        boolean compact,
        long messageTimestampBeforeMaxMs,
        long messageTimestampAfterMaxMs) {

    public LogConfig {
        Objects.requireNonNull(timestampType, "timestampType must be set");
        requireAtLeast("segmentBytes", segmentBytes, 1);
        requireAtLeast("segmentMs", segmentMs, 1);
        requireAtLeast("maxMessageBytes", maxMessageBytes, 0);
        requireAtLeast("flushMessages", flushMessages, 1);
        requireAtLeast("flushMs", flushMs, 0);
        requireAtLeast("indexIntervalBytes", indexIntervalBytes, 0);
        requireAtLeast("messageTimestampBeforeMaxMs", messageTimestampBeforeMaxMs, 0);
        requireAtLeast("messageTimestampAfterMaxMs", messageTimestampAfterMaxMs, 0);
        if (timestampType == TimestampType.NO_TIMESTAMP_TYPE) {
            throw new IllegalArgumentException("timestampType must be CREATE_TIME or LOG_APPEND_TIME, not " + timestampType);
        }
    }

    public LogConfig withSegmentBytes(int value) {
        return new LogConfig(value, segmentMs, maxMessageBytes, timestampType, flushMessages, flushMs,
                indexIntervalBytes, compact, messageTimestampBeforeMaxMs, messageTimestampAfterMaxMs);
    }

    public LogConfig withSegmentMs(long value) {
        return new LogConfig(segmentBytes, value, maxMessageBytes, timestampType, flushMessages, flushMs,
                indexIntervalBytes, compact, messageTimestampBeforeMaxMs, messageTimestampAfterMaxMs);
    }

    public LogConfig withMaxMessageBytes(int value) {
        return new LogConfig(segmentBytes, segmentMs, value, timestampType, flushMessages, flushMs,
                indexIntervalBytes, compact, messageTimestampBeforeMaxMs, messageTimestampAfterMaxMs);
    }

    public LogConfig withTimestampType(TimestampType value) {
        return new LogConfig(segmentBytes, segmentMs, maxMessageBytes, value, flushMessages, flushMs,
                indexIntervalBytes, compact, messageTimestampBeforeMaxMs, messageTimestampAfterMaxMs);
    }

    public LogConfig withFlushMessages(long value) {
        return new LogConfig(segmentBytes, segmentMs, maxMessageBytes, timestampType, value, flushMs,
                indexIntervalBytes, compact, messageTimestampBeforeMaxMs, messageTimestampAfterMaxMs);
    }

    public LogConfig withIndexIntervalBytes(int value) {
        return new LogConfig(segmentBytes, segmentMs, maxMessageBytes, timestampType, flushMessages, flushMs,
                value, compact, messageTimestampBeforeMaxMs, messageTimestampAfterMaxMs);
    }

    public LogConfig withCompact(boolean value) {
        return new LogConfig(segmentBytes, segmentMs, maxMessageBytes, timestampType, flushMessages, flushMs,
                indexIntervalBytes, value, messageTimestampBeforeMaxMs, messageTimestampAfterMaxMs);
    }

    public LogConfig withMessageTimestampBeforeMaxMs(long value) {
        return new LogConfig(segmentBytes, segmentMs, maxMessageBytes, timestampType, flushMessages, flushMs,
                indexIntervalBytes, compact, value, messageTimestampAfterMaxMs);
    }

    public LogConfig withMessageTimestampAfterMaxMs(long value) {
        return new LogConfig(segmentBytes, segmentMs, maxMessageBytes, timestampType, flushMessages, flushMs,
                indexIntervalBytes, compact, messageTimestampBeforeMaxMs, value);
    }

    private static void requireAtLeast(String field, long value, long min) {
        if (value < min) {
            throw new IllegalArgumentException(field + " must be at least " + min + ", but was " + value);
        }
    }
}
