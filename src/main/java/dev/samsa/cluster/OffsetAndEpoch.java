package dev.samsa.cluster;

/**
 * The answer to OffsetForLeaderEpoch: the largest leader epoch the leader knows at or below the one asked, and the
 * offset where it ended; both -1 when the leader knows none.
 */
public record OffsetAndEpoch(long offset, int leaderEpoch) {
}
