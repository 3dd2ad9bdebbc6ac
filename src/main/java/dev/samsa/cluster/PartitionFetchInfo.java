package dev.samsa.cluster;

/**
 * One partition of a fetch: where to read from, the leader epoch the client believes current (-1: no opinion) and
 * the most bytes it takes from this partition.
 */
public record PartitionFetchInfo(long fetchOffset, int currentLeaderEpoch, int maxBytes) {
}
