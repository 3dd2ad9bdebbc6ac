package dev.samsa.log.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class PreparedStoreTest {

    @TempDir
    Path tmp;

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.samsa.log.store.MappedStoreTest#factories")
    void shouldMakeTheDirectoryAndFileInTheBackgroundAndHandOverAStoreThatReadsAsEmpty(MappedStoreFactory stores)
            throws IOException {
        Path file = tmp.resolve("offsets-0").resolve("00000000000000000000.log");
        PreparedStore prepared = PreparedStore.start(stores, file);
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(file));
        try (MappedStore store = prepared.take()) {
            assertThat(store.fileSize()).as("the first chunk is mapped").isEqualTo(ChunkedMappedStore.CHUNK_SIZE);
            assertThat(store.read(0, 8).array()).as("nothing was written").containsOnly(0);
            assertThat(store.flushedPosition()).isZero();
            store.write(0, ByteBuffer.wrap(new byte[] {1, 2, 3}));
            assertThat(store.read(0, 3).array()).as("written on another thread than the one that mapped it")
                    .containsExactly(1, 2, 3);
        }
    }

    @Test
    void shouldLetItsOwnerMakeTheStoreWhenTheBackgroundThreadHasNotStartedOnIt() throws Exception {
        Blocking blocking = new Blocking();
        PreparedStore ahead = PreparedStore.start(blocking, tmp.resolve("a").resolve("0.log"));
        Path file = tmp.resolve("b").resolve("0.log");
        PreparedStore queued = PreparedStore.start(MappedStores.jdk(), file);
        blocking.entered.await(10, TimeUnit.SECONDS);
        try (MappedStore store = queued.take()) {
            assertThat(file).as("made by the owner, not behind the busy background thread").exists();
            store.write(0, ByteBuffer.wrap(new byte[] {7}));
            assertThat(store.read(0, 1).get()).isEqualTo((byte) 7);
        } finally {
            blocking.release.countDown();
            ahead.cancel();
        }
    }

    @Test
    void shouldLeaveTheFileUnmadeWhenCancelledBeforeTheBackgroundThreadStartsOnIt() throws Exception {
        Blocking blocking = new Blocking();
        PreparedStore ahead = PreparedStore.start(blocking, tmp.resolve("a").resolve("0.log"));
        Path dir = tmp.resolve("b");
        PreparedStore queued = PreparedStore.start(MappedStores.jdk(), dir.resolve("0.log"));
        blocking.entered.await(10, TimeUnit.SECONDS);
        queued.cancel();
        blocking.release.countDown();
        ahead.take().close();
        // The background thread has now passed the cancelled store: a third one queued behind it is made.
        Path after = tmp.resolve("c").resolve("0.log");
        PreparedStore third = PreparedStore.start(MappedStores.jdk(), after);
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(after));
        third.cancel();
        assertThat(dir).as("cancelled before it was made").doesNotExist();
    }

    @Test
    void shouldWaitForAStoreBeingMadeWhenCancelledAndCloseIt() throws Exception {
        Blocking blocking = new Blocking();
        PreparedStore prepared = PreparedStore.start(blocking, tmp.resolve("a").resolve("0.log"));
        blocking.entered.await(10, TimeUnit.SECONDS);
        Thread owner = new Thread(() -> {
            try {
                prepared.cancel();
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
        owner.start();
        blocking.release.countDown();
        owner.join(10_000);
        assertThat(owner.isAlive()).as("cancel waited for the store being made, then returned").isFalse();
        assertThatThrownBy(() -> blocking.made.write(0, ByteBuffer.wrap(new byte[] {1})))
                .as("and closed it").isInstanceOf(IOException.class);
    }

    @Test
    void shouldReportWhyTheFileCouldNotBeMade() throws Exception {
        Path notADirectory = Files.writeString(tmp.resolve("plain-file"), "x");
        PreparedStore prepared = PreparedStore.start(MappedStores.jdk(), notADirectory.resolve("0.log"));
        assertThatThrownBy(prepared::take).isInstanceOf(IOException.class).hasMessageContaining("plain-file");
    }

    /** The JDK store, whose create blocks until released: keeps the background thread busy on demand. */
    private static final class Blocking implements MappedStoreFactory {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        volatile MappedStore made;

        @Override
        public MappedStore open(Path file) throws IOException {
            return MappedStores.jdk().open(file);
        }

        @Override
        public MappedStore create(Path file) {
            entered.countDown();
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            made = MappedStores.jdk().create(file);
            return made;
        }

        @Override
        public String name() {
            return "blocking";
        }
    }
}
