package dev.samsa.log.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.BitSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The part of a {@link MappedStore} that both implementations share: a file mapped in fixed-size
 * chunks, with every access split at chunk boundaries (neither chronicle nor a
 * {@code MappedByteBuffer} may be accessed across one), the flushed position, and the
 * bookkeeping that lets {@link #truncate} and {@link #flush} touch only what was written, and the reference count
 * that keeps the mappings while {@link StoreView}s of them are out.
 *
 * <p>A store holds no file descriptor: each chunk is mapped through a channel opened for that and closed at once (a
 * mapping outlives its channel), so a broker with tens of thousands of replicas stays far below {@code ulimit -n}.
 * The store therefore tracks the file's size itself; only mapping a chunk grows the file.
 */
abstract class ChunkedMappedStore implements MappedStore {

    static final int CHUNK_SIZE = 1 << 20;
    private static final int ZERO_BLOCK = 64 * 1024;
    private static final byte[] ZEROS = new byte[ZERO_BLOCK];
    private static final Logger LOG = LoggerFactory.getLogger(ChunkedMappedStore.class);

    private final Path path;
    private final BitSet dirtyChunks = new BitSet();
    private long fileSize;
    private long writtenEnd;
    private long flushedPosition;
    private boolean closed;
    /** One for the open store and one per unreleased view: the mappings go when it reaches zero, on either thread. */
    private final AtomicInteger references = new AtomicInteger(1);
    /** Counts truncations, each before it zeroes anything; a view compares it with the count it was taken at. */
    private volatile long truncations;

    ChunkedMappedStore(Path path, long existingSize) {
        this.path = path;
        this.fileSize = existingSize;
        // Bytes already in the file are on disk as far as this store can tell.
        this.writtenEnd = existingSize;
        this.flushedPosition = existingSize;
    }

    /** Writes {@code length} bytes of {@code src} from {@code offset}; never crosses a chunk. */
    abstract void writeInChunk(long position, ByteBuffer src, int offset, int length) throws IOException;

    /** Reads into {@code dst}; never crosses a chunk, and only below {@link #fileSize()}. */
    abstract void readInChunk(long position, byte[] dst, int offset, int length) throws IOException;

    abstract void syncChunk(int chunk) throws IOException;

    /** A read-only buffer over the whole of {@code chunk}'s mapping, mapping it if needed. */
    abstract ByteBuffer chunkView(int chunk) throws IOException;

    abstract void closeMappings() throws IOException;

    /** Creates {@code path} if it is absent, as an empty file, and returns its size. */
    static long createIfAbsent(Path path) throws IOException {
        try {
            FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE).close();
            return Files.size(path);
        } catch (IOException e) {
            throw new IOException("Cannot open " + path + ": " + e.getMessage(), e);
        }
    }

    /** Called once chunk {@code index} is mapped: mapping grew the file to the end of that chunk if it was shorter. */
    final void mapped(int index) {
        fileSize = Math.max(fileSize, (index + 1L) * CHUNK_SIZE);
    }

    @Override
    public final long fileSize() throws IOException {
        checkOpen();
        return fileSize;
    }

    @Override
    public final void write(long position, ByteBuffer src) throws IOException {
        checkOpen();
        int length = src.remaining();
        int done = 0;
        while (done < length) {
            long at = position + done;
            int n = (int) Math.min(length - done, CHUNK_SIZE - at % CHUNK_SIZE);
            writeInChunk(at, src, src.position() + done, n);
            dirtyChunks.set(chunkOf(at));
            done += n;
        }
        writtenEnd = Math.max(writtenEnd, position + length);
    }

    @Override
    public final void mapFirstChunk() throws IOException {
        checkOpen();
        // A zero over the zero of a new file: the page is allocated, and nothing counts as written.
        writeInChunk(0, ByteBuffer.wrap(ZEROS), 0, 1);
    }

    @Override
    public final ByteBuffer read(long position, int length) throws IOException {
        checkOpen();
        byte[] dst = new byte[length];
        long readable = Math.min(position + length, fileSize());
        int done = 0;
        while (position + done < readable) {
            long at = position + done;
            int n = (int) Math.min(readable - at, CHUNK_SIZE - at % CHUNK_SIZE);
            readInChunk(at, dst, done, n);
            done += n;
        }
        return ByteBuffer.wrap(dst);
    }

    @Override
    public final StoreView view(long position, int length) throws IOException {
        checkOpen();
        if (position < 0 || length < 0 || position + length > fileSize()) {
            throw new IllegalArgumentException("No " + length + " bytes at " + position + " in " + path + " of "
                    + fileSize() + " bytes");
        }
        int first = chunkOf(position);
        int count = length == 0 ? 0 : chunkOf(position + length - 1) - first + 1;
        ByteBuffer[] buffers = new ByteBuffer[count];
        for (int i = 0; i < count; i++) {
            long chunkStart = (long) (first + i) * CHUNK_SIZE;
            long from = Math.max(position, chunkStart);
            long to = Math.min(position + length, chunkStart + CHUNK_SIZE);
            buffers[i] = chunkView(first + i).slice((int) (from - chunkStart), (int) (to - from));
        }
        references.incrementAndGet();
        return new View(buffers, length, truncations);
    }

    @Override
    public final void flush() throws IOException {
        checkOpen();
        for (int chunk = dirtyChunks.nextSetBit(0); chunk >= 0; chunk = dirtyChunks.nextSetBit(chunk + 1)) {
            syncChunk(chunk);
        }
        dirtyChunks.clear();
        flushedPosition = writtenEnd;
    }

    @Override
    public final long flushedPosition() {
        return flushedPosition;
    }

    @Override
    public final void truncate(long size) throws IOException {
        checkOpen();
        long end = Math.min(writtenEnd, fileSize());
        if (size < end) {
            truncations++;
        }
        // Zero only blocks that hold something: after a reopen the whole chunked tail counts as
        // written, and writing zeros over sparse holes would allocate them on disk.
        for (long at = size; at < end; ) {
            int n = (int) Math.min(end - at, Math.min(ZERO_BLOCK - at % ZERO_BLOCK, CHUNK_SIZE - at % CHUNK_SIZE));
            if (!isZero(read(at, n))) {
                writeInChunk(at, ByteBuffer.wrap(ZEROS), 0, n);
                dirtyChunks.set(chunkOf(at));
            }
            at += n;
        }
        writtenEnd = Math.min(writtenEnd, size);
        flushedPosition = Math.min(flushedPosition, size);
    }

    @Override
    public final void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        if (references.decrementAndGet() == 0) {
            closeMappings();
        }
    }

    /** The last view of a closed store unmaps it, on the thread that releases it. */
    private void unreference() {
        if (references.decrementAndGet() == 0) {
            try {
                closeMappings();
            } catch (IOException | RuntimeException e) {
                LOG.warn("Cannot release the mappings of {} after its last view: {}", path, e.toString());
            }
        }
    }

    private final class View implements StoreView {
        private final ByteBuffer[] buffers;
        private final int length;
        private final long truncationsAtView;
        private final AtomicBoolean released = new AtomicBoolean();

        View(ByteBuffer[] buffers, int length, long truncationsAtView) {
            this.buffers = buffers;
            this.length = length;
            this.truncationsAtView = truncationsAtView;
        }

        @Override
        public ByteBuffer[] buffers() {
            ByteBuffer[] copies = new ByteBuffer[buffers.length];
            for (int i = 0; i < buffers.length; i++) {
                copies[i] = buffers[i].duplicate();
            }
            return copies;
        }

        @Override
        public int length() {
            return length;
        }

        @Override
        public boolean intact() {
            return truncations == truncationsAtView;
        }

        @Override
        public void release() {
            if (released.compareAndSet(false, true)) {
                unreference();
            }
        }
    }

    @Override
    public final Path path() {
        return path;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "(" + path + ")";
    }

    final void checkOpen() throws IOException {
        if (closed) {
            throw new IOException("Store " + path + " is closed");
        }
    }

    static int chunkOf(long position) {
        return Math.toIntExact(position / CHUNK_SIZE);
    }

    private static boolean isZero(ByteBuffer buffer) {
        while (buffer.remaining() >= Long.BYTES) {
            if (buffer.getLong() != 0) {
                return false;
            }
        }
        while (buffer.hasRemaining()) {
            if (buffer.get() != 0) {
                return false;
            }
        }
        return true;
    }
}
