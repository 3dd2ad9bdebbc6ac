package dev.samsa.time;

import java.util.ArrayDeque;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one thread that changes cluster state.
 *
 * <p>Handlers, timers, admin calls from the test thread and faults all run here, one at a time, in the order they
 * arrive. Domain code therefore takes no locks: anything that is not on this thread hands a task to
 * {@link #execute} or {@link #call} instead of touching state. A task that throws is logged and the loop goes on.
 */
public final class ClusterLoop implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ClusterLoop.class);

    private final BlockingQueue<Runnable> tasks = new LinkedBlockingQueue<>();
    // Work the current step asked to run as soon as it ends (event triggers): taken before any queued task or timer.
    private final ArrayDeque<Runnable> next = new ArrayDeque<>();
    private final LoopScheduler scheduler;
    private final LongSupplier wallNanos;
    /** Epoch milliseconds at wall time 0: epoch time moves with the loop's wall clock, also one a test moves. */
    private final long epochAtWallZeroMs;
    private final ClusterClock clock;
    /**
     * Loop threads outlive their loop for a while, so that a cluster started after another (a cluster per test) takes
     * an idle one instead of creating a thread; an idle one is named {@value #IDLE_NAME}.
     */
    static final String IDLE_NAME = "samsa-idle-loop";
    private static final ExecutorService THREADS = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 10, TimeUnit.SECONDS,
            new SynchronousQueue<>(), task -> {
                Thread thread = new Thread(task, IDLE_NAME);
                thread.setDaemon(true);
                return thread;
            });
    private final String name;
    /** The thread running {@link #run}, once it runs: until then no thread is in the loop. */
    private volatile Thread thread;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final ErrorSink errors;
    private volatile boolean running = true;

    /** Where unexpected failures go, from any thread: the cluster keeps them for the test to see. */
    @FunctionalInterface
    public interface ErrorSink {
        /** @param brokerId the broker concerned, 0 for cluster-wide work */
        void unexpected(int brokerId, Throwable error);
    }

    public ClusterLoop(String name, ClusterClock clock) {
        this(name, clock, (brokerId, error) -> { });
    }

    public ClusterLoop(String name, ClusterClock clock, ErrorSink errors) {
        // The one wall clock of the cluster: the domain gets it as Scheduler.wallMs().
        this(name, clock, errors, System::nanoTime);
    }

    /** @param wallNanos monotonic wall time for the domain's wall-time rules; a test that drives a loop moves its own */
    public ClusterLoop(String name, ClusterClock clock, ErrorSink errors, LongSupplier wallNanos) {
        this.clock = clock;
        this.errors = errors;
        this.wallNanos = wallNanos;
        this.epochAtWallZeroMs = System.currentTimeMillis() - wallNanos.getAsLong() / 1_000_000L;
        this.scheduler = new LoopScheduler(clock, this, wallNanos);
        this.name = name;
        clock.attach(scheduler);
        // The loop sees the class loader of whoever started it, as a thread of its own would.
        ClassLoader starter = Thread.currentThread().getContextClassLoader();
        THREADS.execute(() -> runOnThisThread(starter));
    }

    private void runOnThisThread(ClassLoader starter) {
        Thread self = Thread.currentThread();
        self.setName(name);
        self.setContextClassLoader(starter);
        thread = self;
        try {
            run();
        } finally {
            // The thread may run another loop next: it is no longer this one's.
            thread = null;
            // An idle thread holds on to no test's class loader.
            self.setContextClassLoader(ClusterLoop.class.getClassLoader());
            self.setName(IDLE_NAME);
            stopped.countDown();
        }
    }

    public Scheduler scheduler() {
        return scheduler;
    }

    public ClusterClock clock() {
        return clock;
    }

    /**
     * This loop's wall time in milliseconds, monotonic, from any thread: for the waits that protect a test thread or a
     * real client from hanging whatever the cluster clock does (a timeline await), never for broker decisions.
     */
    public long wallMillis() {
        return wallNanos.getAsLong() / 1_000_000L;
    }

    /** {@link #wallMillis()} in nanoseconds, for deadlines real clients keep in wall time (a SASL session's lifetime). */
    public long wallNanos() {
        return wallNanos.getAsLong();
    }

    /**
     * The epoch time of this loop's wall clock, in milliseconds, from any thread: for credentials that carry an epoch
     * expiry a real client set (an OAUTHBEARER token), never for broker decisions, which use the cluster clock.
     */
    public long epochMillis() {
        return epochAtWallZeroMs + wallMillis();
    }

    public boolean inLoop() {
        return Thread.currentThread() == thread;
    }

    void assertInLoop() {
        if (!inLoop()) {
            throw new IllegalStateException("Cluster state touched from " + Thread.currentThread().getName()
                    + " instead of the cluster loop " + name);
        }
    }

    public void execute(Runnable task) {
        if (!running) {
            throw new IllegalStateException("Cluster loop " + name + " is closed");
        }
        tasks.add(task);
    }

    /**
     * Runs {@code task} on the loop as soon as the current step (task or timer) is over, before anything queued; from
     * another thread, as {@link #execute}.
     */
    public void runNext(Runnable task) {
        if (inLoop()) {
            next.add(task);
        } else {
            execute(task);
        }
    }

    private void runPendingNext() {
        Runnable task;
        while ((task = next.poll()) != null) {
            try {
                task.run();
            } catch (Throwable e) {
                log.error("Unexpected failure in an action run on the cluster loop; the cluster goes on", e);
                reportUnexpected(0, e);
            }
        }
    }

    /** Runs {@code task} on the loop and waits for its result; runs it directly when already on the loop. */
    public <T> T call(Callable<T> task) {
        if (inLoop()) {
            try {
                return task.call();
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
        CompletableFuture<T> result = new CompletableFuture<>();
        execute(() -> {
            try {
                T value = task.call();
                // What the call set off runs before its caller goes on, so a test sees a fault its call triggered.
                runPendingNext();
                result.complete(value);
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        });
        try {
            return result.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for the cluster loop", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException re) {
                throw re;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException(cause);
        }
    }

    /**
     * Records a failure nobody expected (a bug, or a broken classpath), from any thread; whoever caught it has already
     * logged it, answered or closed what it owned, and goes on.
     */
    public void reportUnexpected(int brokerId, Throwable error) {
        try {
            errors.unexpected(brokerId, error);
        } catch (Throwable e) {
            log.error("Could not record an unexpected failure", e);
        }
    }

    void runSafely(Runnable task, String what) {
        try {
            task.run();
        } catch (Throwable e) {
            log.error("Unexpected failure in {} on the cluster loop; the cluster goes on. This is a Samsa bug: please "
                    + "report it with this stack trace (KafkaCluster.internalErrors() keeps it)", what, e);
            reportUnexpected(0, e);
        }
        runPendingNext();
    }

    private void run() {
        while (running) {
            try {
                long wait = scheduler.nanosUntilNextTimer();
                Runnable task = wait == 0 ? tasks.poll() : tasks.poll(Math.min(wait, 1_000_000_000L), TimeUnit.NANOSECONDS);
                if (task != null) {
                    runSafely(task, "task");
                }
                scheduler.runDueTimers();
            } catch (InterruptedException e) {
                if (!running) {
                    break;
                }
            } catch (Throwable e) {
                // Only the scheduler's own bookkeeping gets here (tasks and timers run safely): keep the loop alive.
                log.error("Unexpected failure of the cluster loop itself; it goes on", e);
                reportUnexpected(0, e);
            }
        }
    }

    @Override
    public void close() {
        if (!running) {
            return;
        }
        CompletableFuture<Void> drained = new CompletableFuture<>();
        tasks.add(() -> {
            running = false;
            drained.complete(null);
        });
        if (!inLoop()) {
            try {
                drained.get(10, TimeUnit.SECONDS);
                stopped.await(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                Thread current = thread;
                if (current != null) {
                    current.interrupt();
                }
            }
        } else {
            running = false;
        }
        clock.detach(scheduler);
    }
}
