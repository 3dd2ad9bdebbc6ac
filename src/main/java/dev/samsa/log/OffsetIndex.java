package dev.samsa.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The sparse offset index of one segment ({@code .index}): maps an offset to the file position of
 * a batch, so a read can start scanning near its target instead of at the start of the segment.
 *
 * <p>Layout, as Kafka's: a sequence of 8-byte entries, each a 4-byte offset relative to the
 * segment's base offset followed by a 4-byte position in the {@code .log} file, both big-endian.
 * The offset is the last offset of the batch that starts at the position. With base offset 50,
 * the batch of offsets 53..55 at position 4169 is stored as {@code (5, 4169)}. Offsets and
 * positions strictly increase. An entry is added once at least {@code index.interval.bytes} of
 * log have been appended since the previous one.
 *
 * <p>The arrays in memory are the index; the file is rebuilt from the log when the segment is
 * recovered, so a torn index never matters, and written by {@link #writeFile()} (see {@link IndexFile}).
 * Not thread-safe: the cluster loop owns the log.
 */
final class OffsetIndex {

    static final int ENTRY_SIZE = 8;

    private final long baseOffset;
    private final IndexFile file;
    private int[] relativeOffsets = new int[16];
    private int[] positions = new int[16];
    private int entries;

    OffsetIndex(long baseOffset, IndexFile file) {
        this.baseOffset = baseOffset;
        this.file = file;
    }

    void append(long offset, int position) {
        int relative = relativeOffset(offset);
        if (entries > 0 && (relative <= relativeOffsets[entries - 1] || position <= positions[entries - 1])) {
            throw new IllegalStateException("Offset index " + file.path() + " must grow: last entry ("
                    + (baseOffset + relativeOffsets[entries - 1]) + ", " + positions[entries - 1]
                    + "), new entry (" + offset + ", " + position + ")");
        }
        if (entries == relativeOffsets.length) {
            relativeOffsets = Arrays.copyOf(relativeOffsets, entries * 2);
            positions = Arrays.copyOf(positions, entries * 2);
        }
        relativeOffsets[entries] = relative;
        positions[entries] = position;
        entries++;
    }

    /** Position of the last indexed batch whose last offset is at most {@code offset}, else 0. */
    int lookup(long offset) {
        int slot = floorSlot(offset);
        return slot < 0 ? 0 : positions[slot];
    }

    /** Drops entries for batches at or after {@code position}. */
    void truncateToPosition(int position) {
        while (entries > 0 && positions[entries - 1] >= position) {
            entries--;
        }
        file.truncated(entries);
    }

    int entries() {
        return entries;
    }

    void writeFile() throws IOException {
        file.write(entries, (from, to) -> {
            ByteBuffer buffer = ByteBuffer.allocate((to - from) * ENTRY_SIZE);
            for (int slot = from; slot < to; slot++) {
                buffer.putInt(relativeOffsets[slot]).putInt(positions[slot]);
            }
            return buffer.flip();
        });
    }

    IndexFile file() {
        return file;
    }

    private int floorSlot(long offset) {
        long relative = offset - baseOffset;
        int low = 0;
        int high = entries - 1;
        int found = -1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            if (relativeOffsets[mid] <= relative) {
                found = mid;
                low = mid + 1;
            } else {
                high = mid - 1;
            }
        }
        return found;
    }

    private int relativeOffset(long offset) {
        long relative = offset - baseOffset;
        if (relative < 0 || relative > Integer.MAX_VALUE) {
            throw new IllegalStateException("Offset " + offset + " does not fit the index " + file.path()
                    + " of base offset " + baseOffset);
        }
        return (int) relative;
    }
}
