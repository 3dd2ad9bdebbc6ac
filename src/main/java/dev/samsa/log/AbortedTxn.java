package dev.samsa.log;

/**
 * An aborted transaction of one producer, as an entry of Kafka's transaction index: its records lie within
 * {@code firstOffset..lastOffset} (the ABORT marker is at {@code lastOffset}), and {@code lastStableOffset} is the
 * partition's last stable offset once it completed. A read_committed consumer drops the producer's records from
 * {@code firstOffset} up to the marker.
 */
public record AbortedTxn(long producerId, long firstOffset, long lastOffset, long lastStableOffset) {
}
