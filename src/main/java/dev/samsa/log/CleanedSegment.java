package dev.samsa.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * A segment the log cleaner is writing: a plain file {@code <base>.log.cleaned} beside the log, invisible to it until
 * {@link PartitionLog#replaceSegments} swaps it in. A crash while it is written leaves only the {@code .cleaned} file,
 * which the next open deletes, as Kafka's LogLoader does.
 *
 * <p>Not thread-safe: the cluster loop owns the log.
 */
public final class CleanedSegment implements AutoCloseable {

    private final long baseOffset;
    private final Path file;
    private final FileChannel channel;
    private final List<AbortedTxn> abortedTxns = new ArrayList<>();
    private long size;

    CleanedSegment(Path dir, long baseOffset) throws IOException {
        this.baseOffset = baseOffset;
        this.file = LogFileUtils.cleanedFile(dir, baseOffset);
        this.channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE);
    }

    /** Appends whole batches, offsets as they were in the log. */
    public void append(MemoryRecords records) throws IOException {
        ByteBuffer buffer = records.buffer().duplicate();
        while (buffer.hasRemaining()) {
            size += channel.write(buffer, size);
        }
    }

    /** An aborted transaction whose marker this segment keeps, for its transaction index. */
    public void appendAbortedTxn(AbortedTxn txn) {
        abortedTxns.add(txn);
    }

    public long baseOffset() {
        return baseOffset;
    }

    public long size() {
        return size;
    }

    List<AbortedTxn> abortedTxns() {
        return List.copyOf(abortedTxns);
    }

    Path file() {
        return file;
    }

    /** Forces the bytes to the device, so that the swap never points at a file a power loss could tear. */
    void flush() throws IOException {
        channel.force(true);
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }

    /** Abandons the segment: a pass that failed leaves the log as it was. */
    public void delete() throws IOException {
        close();
        Files.deleteIfExists(file);
    }
}
