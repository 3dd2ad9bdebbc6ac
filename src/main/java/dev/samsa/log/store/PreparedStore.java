package dev.samsa.log.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A store for a file that does not exist yet, made ahead of its first write on a JVM-wide background thread: the
 * directory, the file and its first mapped chunk ({@link MappedStore#mapFirstChunk}). Creating and mapping a file
 * costs about a millisecond of file-system work; made here, it is off the cluster loop when a coordinator's first write
 * to a partition waits for it.
 *
 * <p>Whoever comes first does the work: the background thread makes the store; or its owner, on first use, makes it
 * itself rather than wait behind other files in the queue, or, closing, leaves it unmade. Once the background thread
 * has started, the owner waits for it, so that no file is made after its owner closed or deleted it.
 */
public final class PreparedStore {

    private static final String IDLE_NAME = "samsa-idle-store-preparer";
    private static final ExecutorService PREPARER = preparer();

    private final MappedStoreFactory factory;
    private final Path file;
    private final AtomicBoolean claimed = new AtomicBoolean();
    private final CompletableFuture<MappedStore> made = new CompletableFuture<>();

    private PreparedStore(MappedStoreFactory factory, Path file) {
        this.factory = factory;
        this.file = file;
    }

    /** Queues {@code file} (in a directory that may not exist yet) to be made in the background. */
    public static PreparedStore start(MappedStoreFactory factory, Path file) {
        PreparedStore prepared = new PreparedStore(factory, file);
        PREPARER.execute(prepared::makeInBackground);
        return prepared;
    }

    /**
     * The store, made on this thread if the background thread has not started on it, else once that is done.
     *
     * @throws IOException naming the file, if it could not be created or mapped
     */
    public MappedStore take() throws IOException {
        if (claimed.compareAndSet(false, true)) {
            return make();
        }
        try {
            return made.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof UncheckedIOException io) {
                throw io.getCause();
            }
            throw e;
        }
    }

    /** Leaves the store unmade, or closes it once made; a file already made stays on disk, empty. */
    public void cancel() throws IOException {
        if (claimed.compareAndSet(false, true)) {
            return;
        }
        MappedStore store;
        try {
            store = made.join();
        } catch (CompletionException e) {
            return;
        }
        store.close();
    }

    private void makeInBackground() {
        if (!claimed.compareAndSet(false, true)) {
            return;
        }
        Thread self = Thread.currentThread();
        self.setName("samsa-store-preparer");
        try {
            made.complete(make());
        } catch (IOException e) {
            made.completeExceptionally(new UncheckedIOException(e));
        } catch (RuntimeException | Error e) {
            made.completeExceptionally(e);
        } finally {
            self.setName(IDLE_NAME);
        }
    }

    private MappedStore make() throws IOException {
        Files.createDirectories(file.getParent());
        MappedStore store = factory.create(file);
        try {
            store.mapFirstChunk();
        } catch (IOException | RuntimeException e) {
            try {
                store.close();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        return store;
    }

    /**
     * One daemon thread for the whole JVM, ended after 10 s idle and named as idle between files; it holds no test's
     * class loader.
     */
    private static ExecutorService preparer() {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 10, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), task -> {
            Thread thread = new Thread(task, IDLE_NAME);
            thread.setDaemon(true);
            thread.setContextClassLoader(PreparedStore.class.getClassLoader());
            return thread;
        });
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }
}
