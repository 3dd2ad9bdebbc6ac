package dev.samsa.log.store;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * One growable memory-mapped file: the page cache of a log segment or index.
 *
 * <p>Writes land in the mapping and are visible to reads at once; they survive a process crash
 * because the operating system owns the pages. {@link #flush()} is the msync that makes them
 * survive a power loss too, and advances {@link #flushedPosition()}.
 *
 * <p>The file on disk is larger than the data in it (it grows in whole chunks and the tail is
 * zero), so the store does not know where the data ends: its owner finds that out by scanning,
 * and calls {@link #truncate(long)} to drop what lies beyond.
 *
 * <p>Not thread-safe: the cluster loop owns the log. Buffers returned by {@link #read} are
 * copies and may be handed to other threads; a {@link StoreView} may be too, which is how fetched bytes reach a
 * socket without a copy.
 */
public interface MappedStore extends Closeable {

    /**
     * Writes the remaining bytes of {@code src} at {@code position}, growing the file as needed.
     * The position of {@code src} is left unchanged.
     *
     * @throws IOException naming the file, if the file cannot grow or the store is closed
     */
    void write(long position, ByteBuffer src) throws IOException;

    /**
     * Returns a heap copy of {@code length} bytes at {@code position}; bytes past the end of the
     * file read as zero.
     *
     * @throws IOException naming the file, if the store is closed
     */
    ByteBuffer read(long position, int length) throws IOException;

    /**
     * The {@code length} bytes at {@code position} as read-only views of the mapping, without a copy. The mapping
     * stays valid until the view is released, even if the store is closed meanwhile; a {@link #truncate} marks the
     * views taken before it as no longer {@link StoreView#intact() intact}.
     *
     * @throws IOException naming the file, if the store is closed
     */
    StoreView view(long position, int length) throws IOException;

    /**
     * Maps the first chunk (growing the file to it) and has the file system allocate its first page, writing nothing
     * that reads differently: the first {@link #write} then costs no file-system work. For a store made ahead of use.
     *
     * @throws IOException naming the file, if it cannot be created or mapped
     */
    void mapFirstChunk() throws IOException;

    /** Size of the file on disk, which is at least the end of the last write. */
    long fileSize() throws IOException;

    /** Forces written bytes to the device (msync) and advances {@link #flushedPosition()}. */
    void flush() throws IOException;

    /** End of the highest byte written before the last {@link #flush()}. */
    long flushedPosition();

    /**
     * Drops every byte at and after {@code size} by zeroing it, so that a later recovery scan
     * cannot mistake stale bytes for data. The file keeps its size.
     */
    void truncate(long size) throws IOException;

    /** Unmaps and closes the file; later calls fail. Closing twice is harmless. */
    @Override
    void close() throws IOException;

    Path path();
}
