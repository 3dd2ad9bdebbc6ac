package dev.samsa.log.store;

import static org.assertj.core.api.Assertions.assertThat;
import static dev.samsa.log.store.ChunkedMappedStore.CHUNK_SIZE;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import com.sun.management.UnixOperatingSystemMXBean;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class MappedStoreTest {

    @TempDir
    Path tmp;

    static Stream<MappedStoreFactory> factories() {
        return Stream.of(MappedStores.chronicle(), MappedStores.jdk());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("factories")
    void shouldReadAcrossChunkBoundariesAndAfterReopen(MappedStoreFactory stores) throws IOException {
        byte[] data = new byte[3 * ChunkedMappedStore.CHUNK_SIZE + 17];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (i * 31 + 7);
        }
        Path file = tmp.resolve("big.log");
        try (MappedStore store = stores.open(file)) {
            ByteBuffer src = ByteBuffer.wrap(data);
            store.write(1000, src);
            assertThat(src.position()).as("source position untouched").isZero();
            assertThat(store.read(1000, data.length).array()).isEqualTo(data);
            assertThat(store.fileSize()).isGreaterThanOrEqualTo(1000L + data.length);
        }
        try (MappedStore store = stores.open(file)) {
            assertThat(store.read(1000, data.length).array()).isEqualTo(data);
            assertThat(store.read(store.fileSize() - 2, 4).array()).as("past the end reads as zero")
                    .containsExactly(0, 0, 0, 0);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("factories")
    void shouldWriteTheBytesOfASliceNotOfItsBackingArray(MappedStoreFactory stores) throws IOException {
        // Produce requests hand the log a slice of the request frame: position 0 of the slice is deep in the array.
        byte[] frame = new byte[100];
        for (int i = 0; i < frame.length; i++) {
            frame[i] = (byte) i;
        }
        ByteBuffer slice = ByteBuffer.wrap(frame, 40, 20).slice();
        try (MappedStore store = stores.open(tmp.resolve("slice.log"))) {
            store.write(0, slice);
            byte[] expected = new byte[20];
            System.arraycopy(frame, 40, expected, 0, 20);
            assertThat(store.read(0, 20).array()).isEqualTo(expected);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("factories")
    void shouldZeroEverythingPastATruncation(MappedStoreFactory stores) throws IOException {
        Path file = tmp.resolve("t.log");
        try (MappedStore store = stores.open(file)) {
            store.write(0, ByteBuffer.wrap(new byte[] {1, 2, 3, 4, 5, 6}));
            store.flush();
            assertThat(store.flushedPosition()).isEqualTo(6);

            store.truncate(2);

            assertThat(store.flushedPosition()).isEqualTo(2);
            assertThat(store.read(0, 6).array()).containsExactly(1, 2, 0, 0, 0, 0);
        }
        try (MappedStore store = stores.open(file)) {
            store.truncate(1);
            assertThat(store.read(0, 3).array()).containsExactly(1, 0, 0);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("factories")
    void shouldNameTheFileWhenUsedAfterClose(MappedStoreFactory stores) throws IOException {
        Path file = tmp.resolve("closed.log");
        MappedStore store = stores.open(file);
        store.close();
        store.close();

        assertThatThrownBy(() -> store.read(0, 1)).isInstanceOf(IOException.class).hasMessageContaining(file.toString());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("factories")
    void shouldViewTheMappedBytesInPlaceAcrossChunks(MappedStoreFactory stores) throws IOException {
        byte[] data = new byte[2 * ChunkedMappedStore.CHUNK_SIZE + 5];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (i * 13 + 1);
        }
        try (MappedStore store = stores.open(tmp.resolve("view.log"))) {
            store.write(300, ByteBuffer.wrap(data));
            StoreView view = store.view(300, data.length);

            assertThat(view.buffers()).hasSize(3).allSatisfy(b -> {
                assertThat(b.isDirect()).as("no heap copy").isTrue();
                assertThat(b.isReadOnly()).isTrue();
            });
            assertThat(concat(view)).isEqualTo(data);
            assertThat(view.intact()).isTrue();
            view.release();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("factories")
    void shouldKeepAViewReadableAfterItsStoreClosesUntilReleased(MappedStoreFactory stores) throws Exception {
        byte[] data = {9, 8, 7, 6, 5};
        MappedStore store = stores.open(tmp.resolve("closing.log"));
        store.write(0, ByteBuffer.wrap(data));
        StoreView view = store.view(0, data.length);
        store.close();
        stores.awaitReleased();

        assertThat(concat(view)).as("still mapped: the view holds it").isEqualTo(data);
        // Released on another thread, as the connection's writer does after sending.
        Thread writer = new Thread(view::release);
        writer.start();
        writer.join();
        view.release();
        stores.awaitReleased();
        assertThatThrownBy(() -> store.view(0, 1)).isInstanceOf(IOException.class);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("factories")
    void shouldMarkViewsTakenBeforeATruncationAsNoLongerIntact(MappedStoreFactory stores) throws IOException {
        try (MappedStore store = stores.open(tmp.resolve("trunc.log"))) {
            store.write(0, ByteBuffer.wrap(new byte[] {1, 2, 3, 4}));
            StoreView before = store.view(0, 4);
            store.truncate(4);
            assertThat(before.intact()).as("nothing dropped").isTrue();

            store.truncate(2);

            assertThat(before.intact()).isFalse();
            StoreView after = store.view(0, 2);
            assertThat(after.intact()).isTrue();
            before.release();
            after.release();
        }
    }

    private static byte[] concat(StoreView view) {
        ByteBuffer all = ByteBuffer.allocate(view.length());
        for (ByteBuffer b : view.buffers()) {
            all.put(b);
        }
        return all.array();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("factories")
    void shouldCreateANewFileWithItsFirstWrite(MappedStoreFactory stores) throws IOException {
        Path file = tmp.resolve("new.log");
        try (MappedStore store = stores.create(file)) {
            assertThat(file).as("before the first write").doesNotExist();
            assertThat(store.fileSize()).isZero();

            store.write(0, ByteBuffer.wrap(new byte[] {7, 8, 9}));

            assertThat(file).exists();
            assertThat(store.read(0, 3).array()).containsExactly(7, 8, 9);
        }
        try (MappedStore store = stores.open(file)) {
            assertThat(store.read(0, 4).array()).containsExactly(7, 8, 9, 0);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("factories")
    void shouldHoldNoFileDescriptorWhileOpen(MappedStoreFactory stores) throws IOException {
        List<MappedStore> open = new ArrayList<>();
        long before = openFileDescriptors(stores);
        try {
            for (int i = 0; i < 200; i++) {
                MappedStore store = stores.open(tmp.resolve(i + ".log"));
                open.add(store);
                store.write(CHUNK_SIZE - 2, ByteBuffer.wrap(new byte[] {1, 2, 3, 4}));
            }
            long during = openFileDescriptors(stores);

            assertThat(during - before).as("descriptors held by 200 open stores of two chunks each").isLessThan(20);
            assertThat(open.get(7).read(CHUNK_SIZE - 2, 4).array()).containsExactly(1, 2, 3, 4);
            assertThat(open.get(7).fileSize()).isEqualTo(2L * CHUNK_SIZE);
        } finally {
            for (MappedStore store : open) {
                store.close();
            }
        }
    }

    private static long openFileDescriptors(MappedStoreFactory stores) {
        stores.awaitReleased();
        return ((UnixOperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getOpenFileDescriptorCount();
    }

    @Test
    void shouldDetectChronicleWhenTheJvmHasItsFlags() {
        // Surefire runs with chronicle.jvm.flags, so the probe must succeed here.
        assertThat(MappedStores.detect().name()).isEqualTo("chronicle");
    }
}
