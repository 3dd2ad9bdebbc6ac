package dev.samsa.network;

import java.nio.ByteBuffer;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The threads connections read and write on: one JVM-wide pool of daemon threads, each kept for
 * {@value #IDLE_SECONDS} s when idle. A client opens a connection per broker it meets (bootstrap, coordinator,
 * leaders), and with a thread pair started per connection the first request waited for both to exist; Kafka's
 * SocketServer starts no thread per connection either (one acceptor and {@code num.network.threads}, default 3,
 * processors per listener).
 *
 * <p>A thread serving a connection is named after it and sees the class loader of whoever started the cluster; an idle
 * one is named {@value #IDLE_NAME} and holds on to no test's class loader. Each thread keeps the buffer it reads or
 * writes through across the connections it serves ({@link #readBuffer}, {@link #writeBuffer}), one at a time.
 */
final class ConnectionThreads {

    static final String IDLE_NAME = "samsa-idle-connection";
    static final long IDLE_SECONDS = 10;

    private static final AtomicLong CREATED = new AtomicLong();
    private static final ExecutorService POOL = new ThreadPoolExecutor(0, Integer.MAX_VALUE, IDLE_SECONDS,
            TimeUnit.SECONDS, new SynchronousQueue<>(), task -> {
                CREATED.incrementAndGet();
                return new PooledThread(task);
            });

    private ConnectionThreads() {
    }

    /**
     * Runs {@code task} on an idle pooled thread, or a new one, named {@code name} while it runs.
     *
     * @throws OutOfMemoryError when no thread can be created (the caller closes the connection)
     */
    static void run(String name, ClassLoader loader, Runnable task) {
        POOL.execute(() -> {
            Thread self = Thread.currentThread();
            self.setName(name);
            self.setContextClassLoader(loader);
            try {
                task.run();
            } finally {
                self.setContextClassLoader(ConnectionThreads.class.getClassLoader());
                self.setName(IDLE_NAME);
            }
        });
    }

    /**
     * A buffer of {@code bytes} for the calling thread's reader to fill from the socket: a pooled thread hands out the
     * same one to each connection it serves, any other thread a new one. What it holds from an earlier connection is
     * never read: a reader reads only what it filled in.
     */
    static byte[] readBuffer(int bytes) {
        if (Thread.currentThread() instanceof PooledThread pooled) {
            if (pooled.readBuffer == null || pooled.readBuffer.length != bytes) {
                pooled.readBuffer = new byte[bytes];
            }
            return pooled.readBuffer;
        }
        return new byte[bytes];
    }

    /**
     * An empty direct buffer of {@code bytes} for the calling thread's writer: a pooled thread hands out the same one
     * to each connection it serves, any other thread a new one.
     */
    static ByteBuffer writeBuffer(int bytes) {
        if (Thread.currentThread() instanceof PooledThread pooled) {
            if (pooled.writeBuffer == null || pooled.writeBuffer.capacity() != bytes) {
                pooled.writeBuffer = ByteBuffer.allocateDirect(bytes);
            }
            return pooled.writeBuffer.clear();
        }
        return ByteBuffer.allocateDirect(bytes);
    }

    /** How many threads the pool has created since the JVM started. */
    static long created() {
        return CREATED.get();
    }

    private static final class PooledThread extends Thread {

        private byte[] readBuffer;
        private ByteBuffer writeBuffer;

        PooledThread(Runnable task) {
            super(task, IDLE_NAME);
            setDaemon(true);
        }
    }
}
