package dev.samsa.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The time index of one segment ({@code .timeindex}): where the largest timestamp seen so far
 * grew, so a search by timestamp can skip every batch that is certainly older.
 *
 * <p>Layout, as Kafka's: a sequence of 12-byte entries, each an 8-byte timestamp followed by a
 * 4-byte offset relative to the segment's base offset, both big-endian. Entry {@code (T, o)}
 * says that the batch whose last offset is {@code o} raised the segment's largest timestamp to
 * {@code T}, so every record before that batch is older than {@code T}. Timestamps and offsets
 * strictly increase.
 *
 * <p>The arrays in memory are the index; the file is rebuilt from the log when the segment is
 * recovered, and written by {@link #writeFile()} (see {@link IndexFile}). Not thread-safe: the cluster loop owns the
 * log.
 */
final class TimeIndex {

    static final int ENTRY_SIZE = 12;

    private final long baseOffset;
    private final IndexFile file;
    private long[] timestamps = new long[16];
    private int[] relativeOffsets = new int[16];
    private int entries;

    TimeIndex(long baseOffset, IndexFile file) {
        this.baseOffset = baseOffset;
        this.file = file;
    }

    /** Adds an entry if {@code timestamp} is larger than the last one. */
    void maybeAppend(long timestamp, long offset) {
        if (entries > 0 && timestamp <= timestamps[entries - 1]) {
            return;
        }
        if (entries == timestamps.length) {
            timestamps = Arrays.copyOf(timestamps, entries * 2);
            relativeOffsets = Arrays.copyOf(relativeOffsets, entries * 2);
        }
        int relative = Math.toIntExact(offset - baseOffset);
        timestamps[entries] = timestamp;
        relativeOffsets[entries] = relative;
        entries++;
    }

    /**
     * The offset of the last entry whose timestamp is at most {@code timestamp}: records before
     * that entry's batch are all older than {@code timestamp}. {@code -1} if there is none.
     */
    long lookup(long timestamp) {
        int low = 0;
        int high = entries - 1;
        int found = -1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            if (timestamps[mid] <= timestamp) {
                found = mid;
                low = mid + 1;
            } else {
                high = mid - 1;
            }
        }
        return found < 0 ? -1 : baseOffset + relativeOffsets[found];
    }

    /** Drops entries for batches whose last offset is at or after {@code offset}. */
    void truncateTo(long offset) {
        while (entries > 0 && baseOffset + relativeOffsets[entries - 1] >= offset) {
            entries--;
        }
        file.truncated(entries);
    }

    void writeFile() throws IOException {
        file.write(entries, (from, to) -> {
            ByteBuffer buffer = ByteBuffer.allocate((to - from) * ENTRY_SIZE);
            for (int slot = from; slot < to; slot++) {
                buffer.putLong(timestamps[slot]).putInt(relativeOffsets[slot]);
            }
            return buffer.flip();
        });
    }

    IndexFile file() {
        return file;
    }
}
