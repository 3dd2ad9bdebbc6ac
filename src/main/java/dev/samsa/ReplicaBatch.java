package dev.samsa;

/**
 * One record batch as a replica's log holds it: its offsets, the leader epoch that wrote it, and a CRC-32 of all its
 * bytes (header included), so that two replicas hold the same batch exactly when their {@code ReplicaBatch}es are equal.
 */
public record ReplicaBatch(long baseOffset, long lastOffset, int leaderEpoch, long bytesCrc32) {
}
