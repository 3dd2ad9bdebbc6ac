package dev.samsa.time;

/**
 * Keyed timers and the two times the domain decides with, as Kafka's {@code CoordinatorTimer}.
 *
 * <p>Two kinds of deadline: cluster-time timers ({@link #schedule}) fire when the cluster clock passes them, which on a
 * manual clock means inside {@link ClusterClock#advance}; wall-time timers ({@link #scheduleWall}) protect real
 * clients, which live in wall time, and fire whatever the cluster clock does. Scheduling an existing key replaces its
 * timer, so a heartbeat just re-schedules the member's expiry. Every method must be called on the cluster loop.
 *
 * <p>The cluster's is the loop's; a unit test gives the domain a thread-free twin whose {@code advance} reports what
 * fired.
 */
public interface Scheduler {

    /** Cluster time in epoch milliseconds. */
    long nowMs();

    /** Wall time in milliseconds, monotonic, for the liveness rule's "silent in wall time too" (DESIGN.md). */
    long wallMs();

    /** Whether cluster time moves only when a test advances it, so wall time may disagree with it. */
    boolean manualClock();

    /** Runs {@code task} when cluster time reaches {@code deadlineMs}. */
    void schedule(String key, long deadlineMs, Runnable task);

    default void scheduleAfter(String key, long delayMs, Runnable task) {
        schedule(key, saturatedAdd(nowMs(), delayMs), task);
    }

    /** Runs {@code task} after {@code delayMs} of wall time, for waits that must end even under a manual clock. */
    void scheduleWall(String key, long delayMs, Runnable task);

    /** Returns whether a timer was scheduled under {@code key}. */
    boolean cancel(String key);

    boolean isScheduled(String key);

    /** {@code a + b}, or Long.MAX_VALUE where that overflows: a deadline "never" stays never. */
    private static long saturatedAdd(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
    }
}
