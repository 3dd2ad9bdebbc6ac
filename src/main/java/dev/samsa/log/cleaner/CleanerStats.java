package dev.samsa.log.cleaner;

/**
 * What one cleaning pass of a log did, as Kafka's {@code CleanerStats}: records and bytes read and written, and the
 * offset the log is clean up to, the cleaner's next checkpoint.
 */
public record CleanerStats(long recordsRead, long recordsRemoved, long bytesRead, long bytesWritten, long endOffset) {
}
