package dev.samsa.log;

import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * Whole batches read from a log, starting with the batch that contains the fetch offset, so the
 * first batch may hold records before it; clients skip those. Empty when there is nothing to read.
 */
public record LogReadInfo(MemoryRecords records) {

    public static final LogReadInfo EMPTY = new LogReadInfo(MemoryRecords.EMPTY);
}
