package dev.samsa.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The file of an index whose working copy lives in memory ({@link OffsetIndex}, {@link TimeIndex}). Samsa rebuilds
 * every index from the log when it opens a segment and never reads these files; they are written, in Kafka's layout,
 * for the people and tools that look into a log directory: when the segment is flushed and when it is closed, which
 * creates them (Kafka creates them on a segment's first append; here that append would pay two file creations for
 * files nothing reads). In between the index holds neither a descriptor nor a mapping, since a broker with 30,000
 * replicas would otherwise hold 60,000 of each, past both {@code ulimit -n} and {@code vm.max_map_count}.
 *
 * <p>Not thread-safe: the cluster loop owns the log.
 */
final class IndexFile {

    /** Encodes the entries {@code [from, to)} of an index, big-endian, back to back. */
    interface Entries {
        ByteBuffer encode(int from, int to);
    }

    private final Path path;
    private final int entrySize;
    /** Entries at the start of the file that match the index in memory. */
    private int written;
    /** Whether the file may hold more than {@link #written} entries: from before an open, or a truncation. */
    private boolean longer = true;

    IndexFile(Path path, int entrySize) {
        this.path = path;
        this.entrySize = entrySize;
    }

    /** The index in memory dropped its entries from {@code entries} on. */
    void truncated(int entries) {
        written = Math.min(written, entries);
        longer = true;
    }

    /** Makes the file hold exactly the index's {@code entries} entries, writing only those not written yet. */
    void write(int entries, Entries index) throws IOException {
        if (entries == written && !longer) {
            return;
        }
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            ByteBuffer tail = index.encode(written, entries);
            long position = (long) written * entrySize;
            while (tail.hasRemaining()) {
                position += channel.write(tail, position);
            }
            if (longer) {
                channel.truncate((long) entries * entrySize);
            }
        } catch (IOException e) {
            throw new IOException("Cannot write the index " + path + ": " + e.getMessage(), e);
        }
        written = entries;
        longer = false;
    }

    Path path() {
        return path;
    }
}
