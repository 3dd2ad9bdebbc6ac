package dev.samsa.log;

import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeMap;

/**
 * Which leader epoch started at which offset, as Kafka's {@code LeaderEpochFileCache}, kept in
 * memory only: it is rebuilt from the partition leader epoch of every batch when the log is
 * recovered, so it needs no file of its own.
 *
 * <p>Not thread-safe: the cluster loop owns the log.
 */
final class LeaderEpochCache {

    /** Epoch to start offset; start offsets grow with the epochs. */
    private final TreeMap<Integer, Long> epochs = new TreeMap<>();

    /**
     * Records that {@code epoch} starts at {@code startOffset}, unless the epoch is already known.
     * An older epoch, or one starting before the latest, replaces the entries it conflicts with,
     * as Kafka's {@code assign} does.
     */
    void assign(int epoch, long startOffset) {
        if (epoch < 0) {
            return;
        }
        Map.Entry<Integer, Long> latest = epochs.lastEntry();
        if (latest != null && latest.getKey() == epoch) {
            return;
        }
        if (latest != null && (epoch < latest.getKey() || startOffset < latest.getValue())) {
            epochs.entrySet().removeIf(e -> e.getKey() >= epoch || e.getValue() >= startOffset);
        }
        epochs.put(epoch, startOffset);
    }

    /** The epoch of the leader that wrote {@code offset}: the largest epoch starting at or before it. */
    OptionalInt epochForOffset(long offset) {
        OptionalInt found = OptionalInt.empty();
        for (Map.Entry<Integer, Long> e : epochs.entrySet()) {
            if (e.getValue() > offset) {
                break;
            }
            found = OptionalInt.of(e.getKey());
        }
        return found;
    }

    OptionalInt latestEpoch() {
        return epochs.isEmpty() ? OptionalInt.empty() : OptionalInt.of(epochs.lastKey());
    }

    /**
     * OffsetsForLeaderEpoch, with the rules of Kafka's {@code LeaderEpochFileCache.endOffsetFor}:
     * the latest epoch ends at the log end offset; an older epoch is answered with the largest
     * known epoch at most the one asked for, ending where the next known epoch starts; an epoch
     * older than every known one gets that epoch back with the start of the first known epoch
     * (the data before it is gone); an undefined epoch or one newer than every known one is
     * {@link EpochEndOffset#UNDEFINED}.
     */
    EpochEndOffset endOffsetFor(int requestedEpoch, long logEndOffset) {
        if (requestedEpoch == EpochEndOffset.UNDEFINED_EPOCH) {
            return EpochEndOffset.UNDEFINED;
        }
        if (!epochs.isEmpty() && epochs.lastKey() == requestedEpoch) {
            return new EpochEndOffset(requestedEpoch, logEndOffset);
        }
        Map.Entry<Integer, Long> higher = epochs.higherEntry(requestedEpoch);
        if (higher == null) {
            return EpochEndOffset.UNDEFINED;
        }
        Map.Entry<Integer, Long> floor = epochs.floorEntry(requestedEpoch);
        if (floor == null) {
            return new EpochEndOffset(requestedEpoch, higher.getValue());
        }
        return new EpochEndOffset(floor.getKey(), higher.getValue());
    }

    /** Forgets epochs that start at or after {@code endOffset}, after the log was truncated there. */
    void truncateFromEnd(long endOffset) {
        epochs.entrySet().removeIf(e -> e.getValue() >= endOffset);
    }

    /**
     * Moves the epoch in force at {@code startOffset} to start there and forgets older ones, after
     * the log start offset was raised, as Kafka's {@code truncateFromStart}.
     */
    void truncateFromStart(long startOffset) {
        Map.Entry<Integer, Long> inForce = null;
        for (Map.Entry<Integer, Long> e : epochs.entrySet()) {
            if (e.getValue() <= startOffset) {
                inForce = e;
            }
        }
        if (inForce != null) {
            int epoch = inForce.getKey();
            epochs.headMap(epoch, true).clear();
            epochs.put(epoch, startOffset);
        }
    }

    void clear() {
        epochs.clear();
    }

    @Override
    public String toString() {
        return "LeaderEpochCache" + epochs;
    }
}
