package dev.samsa.log;

import java.util.OptionalLong;

/**
 * Kafka's {@code LastRecord}: the last data offset of an active producer (empty if its last entry is a transaction
 * marker) and its epoch. The cleaner keeps the batch that holds it, even emptied, so that the producer's sequence and
 * epoch survive cleaning.
 */
public record LastRecord(OptionalLong lastDataOffset, short producerEpoch) {
}
