package dev.samsa.group;

/**
 * A committed position: the next offset to read, the leader epoch of the last record read (-1 unknown), the client's
 * metadata string (may be null), and the cluster time of the commit.
 */
public record CommittedOffset(long offset, int leaderEpoch, String metadata, long commitTimestampMs) {
}
