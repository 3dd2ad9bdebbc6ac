package dev.samsa.time;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
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
    private final Scheduler scheduler;
    private final ClusterClock clock;
    private final Thread thread;
    private volatile boolean running = true;

    public ClusterLoop(String name, ClusterClock clock) {
        this.clock = clock;
        this.scheduler = new Scheduler(clock, this);
        this.thread = new Thread(this::run, name);
        this.thread.setDaemon(true);
        clock.attach(scheduler);
        thread.start();
    }

    public Scheduler scheduler() {
        return scheduler;
    }

    public ClusterClock clock() {
        return clock;
    }

    public boolean inLoop() {
        return Thread.currentThread() == thread;
    }

    void assertInLoop() {
        if (!inLoop()) {
            throw new IllegalStateException("Cluster state touched from " + Thread.currentThread().getName()
                    + " instead of the cluster loop " + thread.getName());
        }
    }

    public void execute(Runnable task) {
        if (!running) {
            throw new IllegalStateException("Cluster loop " + thread.getName() + " is closed");
        }
        tasks.add(task);
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
                result.complete(task.call());
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

    void runSafely(Runnable task, String what) {
        try {
            task.run();
        } catch (Throwable e) {
            log.error("Unexpected failure in {} on the cluster loop; the cluster goes on", what, e);
        }
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
                thread.join(10_000);
            } catch (Exception e) {
                thread.interrupt();
            }
        } else {
            running = false;
        }
        clock.detach(scheduler);
    }
}
