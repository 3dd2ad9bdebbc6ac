package dev.samsa.log.store;

import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link MappedStore} on {@code FileChannel.map}, one {@link MappedByteBuffer} per 1 MiB chunk,
 * for JVMs started without the flags chronicle needs. Mapping a chunk past the end of the file
 * grows the file to the end of that chunk.
 */
final class JdkMappedStore extends ChunkedMappedStore {

    private final FileChannel channel;
    private final List<MappedByteBuffer> chunks = new ArrayList<>();

    private JdkMappedStore(Path path, FileChannel channel) throws IOException {
        super(path, channel.size());
        this.channel = channel;
    }

    static JdkMappedStore open(Path path) throws IOException {
        try {
            FileChannel channel = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
            return new JdkMappedStore(path, channel);
        } catch (IOException e) {
            throw new IOException("Cannot open " + path + ": " + e.getMessage(), e);
        }
    }

    @Override
    void writeInChunk(long position, ByteBuffer src, int offset, int length) throws IOException {
        chunk(chunkOf(position)).put((int) (position % CHUNK_SIZE), src, offset, length);
    }

    @Override
    void readInChunk(long position, byte[] dst, int offset, int length) throws IOException {
        chunk(chunkOf(position)).get((int) (position % CHUNK_SIZE), dst, offset, length);
    }

    @Override
    void syncChunk(int chunk) {
        if (chunk < chunks.size() && chunks.get(chunk) != null) {
            chunks.get(chunk).force();
        }
    }

    @Override
    public long fileSize() throws IOException {
        checkOpen();
        return channel.size();
    }

    @Override
    void closeMappings() throws IOException {
        try {
            channel.close();
        } catch (IOException e) {
            throw new IOException("Cannot close " + path() + ": " + e.getMessage(), e);
        }
        // Unmap now rather than at some later GC, so that a cluster that opens and deletes many
        // segments does not pile up mappings. Nothing reads these buffers after close: reads
        // return copies.
        for (MappedByteBuffer buffer : chunks) {
            if (buffer != null) {
                Unmapper.unmap(buffer);
            }
        }
        chunks.clear();
    }

    private MappedByteBuffer chunk(int index) throws IOException {
        while (chunks.size() <= index) {
            chunks.add(null);
        }
        MappedByteBuffer buffer = chunks.get(index);
        if (buffer == null) {
            try {
                buffer = channel.map(FileChannel.MapMode.READ_WRITE, (long) index * CHUNK_SIZE, CHUNK_SIZE);
            } catch (IOException e) {
                throw new IOException("Cannot map chunk " + index + " of " + path() + ": " + e.getMessage(), e);
            }
            chunks.set(index, buffer);
        }
        return buffer;
    }

    /** {@code sun.misc.Unsafe.invokeCleaner}, which needs no flags; a no-op where it is missing. */
    private static final class Unmapper {
        private static final Object UNSAFE = lookup();

        private static Object lookup() {
            try {
                Class<?> type = Class.forName("sun.misc.Unsafe");
                Field field = type.getDeclaredField("theUnsafe");
                field.setAccessible(true);
                return field.get(null);
            } catch (ReflectiveOperationException | RuntimeException e) {
                return null;
            }
        }

        static void unmap(ByteBuffer buffer) {
            if (UNSAFE == null) {
                return;
            }
            try {
                UNSAFE.getClass().getMethod("invokeCleaner", ByteBuffer.class).invoke(UNSAFE, buffer);
            } catch (ReflectiveOperationException | RuntimeException e) {
                // The GC unmaps it later.
            }
        }
    }
}
