package dev.samsa.log;

/**
 * The outcome of an append: the offsets given to the first and last record,
 * the broker time stamped on the batches ({@code -1} unless the topic uses LOG_APPEND_TIME),
 * the log start offset, and whether the batch was a retry already in the log, in which case
 * nothing was appended and the offsets are those it got the first time.
 */
public record LogAppendInfo(long firstOffset, long lastOffset, long logAppendTime, long logStartOffset,
                            boolean duplicate) {
}
