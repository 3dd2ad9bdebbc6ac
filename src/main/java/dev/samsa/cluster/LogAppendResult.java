package dev.samsa.cluster;

/**
 * Where a leader's append put a producer's records: the offsets of the first and last record, the broker time stamped
 * on them (-1 unless the topic uses LogAppendTime) and the log start offset after the append.
 */
public record LogAppendResult(long firstOffset, long lastOffset, long logAppendTime, long logStartOffset) {
}
