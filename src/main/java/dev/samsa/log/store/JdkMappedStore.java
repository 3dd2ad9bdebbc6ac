package dev.samsa.log.store;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
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

    private final List<MappedByteBuffer> chunks = new ArrayList<>();
    /** Java 22+: the java.lang.foreign.Arena all chunks are mapped in, whose close unmaps them; else null. */
    private final AutoCloseable arena;

    private JdkMappedStore(Path path, long size) {
        super(path, size);
        this.arena = ArenaMapping.open();
    }

    static JdkMappedStore open(Path path) throws IOException {
        return new JdkMappedStore(path, createIfAbsent(path));
    }

    static JdkMappedStore create(Path path) {
        return new JdkMappedStore(path, 0L);
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
    ByteBuffer chunkView(int chunk) throws IOException {
        return chunk(chunk).asReadOnlyBuffer();
    }

    @Override
    void closeMappings() throws IOException {
        // Unmap now rather than at some later GC, so that a cluster that opens and deletes many
        // segments does not pile up mappings. Nothing reads these buffers any more: reads return
        // copies, and this runs only once the last view is released.
        if (arena != null) {
            ArenaMapping.close(arena);
        } else {
            for (MappedByteBuffer buffer : chunks) {
                if (buffer != null) {
                    Unmapper.unmap(buffer);
                }
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
            try (FileChannel channel = FileChannel.open(path(), StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE)) {
                long position = (long) index * CHUNK_SIZE;
                buffer = arena != null ? ArenaMapping.map(channel, position, CHUNK_SIZE, arena)
                        : channel.map(FileChannel.MapMode.READ_WRITE, position, CHUNK_SIZE);
            } catch (IOException e) {
                throw new IOException("Cannot map chunk " + index + " of " + path() + ": " + e.getMessage(), e);
            }
            chunks.set(index, buffer);
            mapped(index);
        }
        return buffer;
    }

    /**
     * {@code FileChannel.map(mode, position, size, Arena)} of java.lang.foreign (Java 22+), where closing the arena is the
     * supported way to unmap. Reached by reflection because Samsa compiles for Java 17.
     */
    private static final class ArenaMapping {
        private static final Method OF_SHARED;
        private static final Method MAP;
        private static final Method AS_BYTE_BUFFER;

        static {
            Method ofShared = null;
            Method map = null;
            Method asByteBuffer = null;
            if (Runtime.version().feature() >= 22) {
                try {
                    Class<?> arena = Class.forName("java.lang.foreign.Arena");
                    ofShared = arena.getMethod("ofShared");
                    map = FileChannel.class.getMethod("map", FileChannel.MapMode.class, long.class, long.class, arena);
                    asByteBuffer = Class.forName("java.lang.foreign.MemorySegment").getMethod("asByteBuffer");
                } catch (ReflectiveOperationException e) {
                    ofShared = null;
                }
            }
            OF_SHARED = ofShared;
            MAP = map;
            AS_BYTE_BUFFER = asByteBuffer;
        }

        /** A new shared arena, or null before Java 22. */
        static AutoCloseable open() {
            if (OF_SHARED == null) {
                return null;
            }
            try {
                return (AutoCloseable) OF_SHARED.invoke(null);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("Arena.ofShared() failed", e);
            }
        }

        static MappedByteBuffer map(FileChannel channel, long position, long size, AutoCloseable arena) throws IOException {
            try {
                Object segment = MAP.invoke(channel, FileChannel.MapMode.READ_WRITE, position, size, arena);
                return (MappedByteBuffer) AS_BYTE_BUFFER.invoke(segment);
            } catch (InvocationTargetException e) {
                if (e.getCause() instanceof IOException io) {
                    throw io;
                }
                throw new IOException(e.getCause());
            } catch (ReflectiveOperationException e) {
                throw new IOException(e);
            }
        }

        static void close(AutoCloseable arena) throws IOException {
            try {
                arena.close();
            } catch (Exception e) {
                throw new IOException("Cannot unmap: " + e.getMessage(), e);
            }
        }
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
