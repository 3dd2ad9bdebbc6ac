package dev.samsa.log.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import net.openhft.chronicle.bytes.MappedBytesStore;
import net.openhft.chronicle.bytes.MappedFile;
import net.openhft.chronicle.core.io.BackgroundResourceReleaser;
import net.openhft.chronicle.core.io.ReferenceOwner;

/**
 * A {@link MappedStore} on chronicle-bytes: one acquired {@link MappedBytesStore} per 1 MiB chunk touched, each from
 * a {@link MappedFile} (1 MiB chunks, no overlap) opened to acquire it and released at once: the acquired store keeps
 * its mapping, the released file lets go of its descriptor. Acquiring a chunk past the end of the file grows the
 * file. Needs the JVM flags listed in {@link MappedStores}.
 */
final class ChronicleMappedStore extends ChunkedMappedStore {

    private final ReferenceOwner owner;
    private final List<MappedBytesStore> chunks = new ArrayList<>();
    /** Per chunk, a read-only ByteBuffer over its memory, made on the first view of it. */
    private final List<ByteBuffer> chunkViews = new ArrayList<>();

    private ChronicleMappedStore(Path path, long size) {
        super(path, size);
        this.owner = ReferenceOwner.temporary("samsa-store-" + path.getFileName());
    }

    static ChronicleMappedStore open(Path path) throws IOException {
        return new ChronicleMappedStore(path, createIfAbsent(path));
    }

    /** Chronicle's {@link MappedFile} creates the file when it maps the first chunk. */
    static ChronicleMappedStore create(Path path) {
        return new ChronicleMappedStore(path, 0L);
    }

    @Override
    void writeInChunk(long position, ByteBuffer src, int offset, int length) throws IOException {
        // Chronicle's ByteBuffer write ignores a heap buffer's arrayOffset, and produce requests hand us slices of
        // the request frame; going through the array with the offset made explicit writes the right bytes.
        if (src.hasArray()) {
            chunk(chunkOf(position)).write(position, src.array(), src.arrayOffset() + offset, length);
        } else {
            chunk(chunkOf(position)).write(position, src, offset, length);
        }
    }

    @Override
    void readInChunk(long position, byte[] dst, int offset, int length) throws IOException {
        chunk(chunkOf(position)).read(position, dst, offset, length);
    }

    @Override
    void syncChunk(int chunk) {
        if (chunk < chunks.size() && chunks.get(chunk) != null) {
            MappedBytesStore store = chunks.get(chunk);
            store.syncUpTo(store.start() + CHUNK_SIZE);
        }
    }

    @Override
    ByteBuffer chunkView(int chunk) throws IOException {
        MappedBytesStore store = chunk(chunk);
        while (chunkViews.size() <= chunk) {
            chunkViews.add(null);
        }
        ByteBuffer view = chunkViews.get(chunk);
        if (view == null) {
            // A direct buffer at the chunk's address: it does not keep the mapping alive, the store's views do.
            view = store.toTemporaryDirectByteBuffer().limit(CHUNK_SIZE).slice().asReadOnlyBuffer();
            chunkViews.set(chunk, view);
        }
        return view;
    }

    /** Chronicle unmaps and closes released files on its background releaser thread; this waits for it. */
    static void awaitReleased() {
        BackgroundResourceReleaser.releasePendingResources();
    }

    @Override
    void closeMappings() {
        for (MappedBytesStore store : chunks) {
            if (store != null) {
                store.release(owner);
            }
        }
        chunks.clear();
        chunkViews.clear();
    }

    private MappedBytesStore chunk(int index) throws IOException {
        while (chunks.size() <= index) {
            chunks.add(null);
        }
        MappedBytesStore store = chunks.get(index);
        if (store == null) {
            MappedFile file = null;
            try {
                file = MappedFile.of(path().toFile(), CHUNK_SIZE, 0, false);
                store = file.acquireByteStore(owner, (long) index * CHUNK_SIZE);
            } catch (IOException | RuntimeException e) {
                throw new IOException("Cannot map chunk " + index + " of " + path() + ": " + e, e);
            } finally {
                if (file != null) {
                    file.releaseLast();
                }
            }
            chunks.set(index, store);
            mapped(index);
        }
        return store;
    }
}
