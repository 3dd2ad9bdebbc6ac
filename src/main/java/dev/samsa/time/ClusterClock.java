package dev.samsa.time;

import java.time.Duration;
import java.time.Instant;

/**
 * The only source of time for broker logic.
 *
 * <p>{@link #system()} follows the wall clock. {@link #manual(Instant)} moves only when a test calls
 * {@link #advance(Duration)}; every cluster timer that falls due runs, in deadline order, before
 * {@code advance} returns.
 *
 * <p>Wall time is not the cluster's: the cluster loop owns it ({@link ClusterLoop#wallMillis()}) and hands it to the
 * domain ({@link Scheduler#wallMs()}), for the liveness rule and the waits that protect real clients.
 */
public abstract class ClusterClock {

    ClusterClock() {
    }

    public static ClusterClock system() {
        return new SystemClock();
    }

    public static ClusterClock manual(Instant start) {
        return new ManualClock(start.toEpochMilli());
    }

    /** Cluster time in epoch milliseconds. */
    public abstract long milliseconds();

    public Instant instant() {
        return Instant.ofEpochMilli(milliseconds());
    }

    public boolean isManual() {
        return false;
    }

    /**
     * Moves a manual clock forward, running every timer that falls due on the way, in order.
     *
     * @throws UnsupportedOperationException on the system clock, which follows the wall clock
     */
    public void advance(Duration duration) {
        throw new UnsupportedOperationException(
                "The system clock follows the wall clock; build the cluster with ClusterClock.manual(start) to advance it");
    }

    /** Lets the cluster that owns this clock run the timers of an {@link #advance}. */
    abstract void attach(LoopScheduler scheduler);

    abstract void detach(LoopScheduler scheduler);

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + instant() + "]";
    }
}
