package dev.samsa.time;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.LongSupplier;

/**
 * The cluster loop's {@link Scheduler}: cluster-time timers fire when the cluster clock passes them, which on a manual
 * clock means inside {@link ClusterClock#advance}; wall-time timers fire when the loop's wall clock does.
 */
final class LoopScheduler implements Scheduler {

    private record Timer(String key, long deadline, long seq, Runnable task) implements Comparable<Timer> {
        @Override
        public int compareTo(Timer o) {
            int c = Long.compare(deadline, o.deadline);
            return c != 0 ? c : Long.compare(seq, o.seq);
        }
    }

    private final ClusterClock clock;
    private final ClusterLoop loop;
    /** Monotonic wall time, the loop's: the domain reads it through {@link #wallMs}, never through a static. */
    private final LongSupplier wallNanos;
    private final TreeSet<Timer> clusterTimers = new TreeSet<>();
    private final TreeSet<Timer> wallTimers = new TreeSet<>();
    private final Map<String, Timer> byKey = new HashMap<>();
    private long seq;

    LoopScheduler(ClusterClock clock, ClusterLoop loop, LongSupplier wallNanos) {
        this.clock = clock;
        this.loop = loop;
        this.wallNanos = wallNanos;
    }

    @Override
    public long nowMs() {
        return clock.milliseconds();
    }

    @Override
    public long wallMs() {
        return wallNanos.getAsLong() / 1_000_000L;
    }

    @Override
    public boolean manualClock() {
        return clock.isManual();
    }

    @Override
    public void schedule(String key, long deadlineMs, Runnable task) {
        loop.assertInLoop();
        cancel(key);
        Timer t = new Timer(key, deadlineMs, seq++, task);
        byKey.put(key, t);
        clusterTimers.add(t);
    }

    @Override
    public void scheduleWall(String key, long delayMs, Runnable task) {
        loop.assertInLoop();
        cancel(key);
        Timer t = new Timer(key, saturatedAdd(wallNanos.getAsLong(), Math.min(delayMs, Long.MAX_VALUE / 2_000_000L) * 1_000_000L),
                seq++, task);
        byKey.put(key, t);
        wallTimers.add(t);
    }

    @Override
    public boolean cancel(String key) {
        Timer t = byKey.remove(key);
        if (t == null) {
            return false;
        }
        clusterTimers.remove(t);
        wallTimers.remove(t);
        return true;
    }

    @Override
    public boolean isScheduled(String key) {
        return byKey.containsKey(key);
    }

    /** Nanoseconds the loop may sleep before a timer is due; Long.MAX_VALUE if none. */
    long nanosUntilNextTimer() {
        long wait = Long.MAX_VALUE;
        if (!wallTimers.isEmpty()) {
            wait = wallTimers.first().deadline - wallNanos.getAsLong();
        }
        if (!clock.isManual() && !clusterTimers.isEmpty()) {
            long ms = clusterTimers.first().deadline - clock.milliseconds();
            // The loop wakes at least every second anyway; capping first keeps far deadlines from overflowing.
            wait = Math.min(wait, ms <= 0 ? 0 : Math.min(ms, 1_000L) * 1_000_000L);
        }
        return Math.max(0, wait);
    }

    void runDueTimers() {
        long now = clock.milliseconds();
        while (!clusterTimers.isEmpty() && clusterTimers.first().deadline <= now) {
            fire(clusterTimers.pollFirst());
        }
        long wall = wallNanos.getAsLong();
        while (!wallTimers.isEmpty() && wallTimers.first().deadline - wall <= 0) {
            fire(wallTimers.pollFirst());
        }
    }

    /** Called from a test thread through {@link ManualClock#advance}: runs due timers in order at their own time. */
    void advanceTo(long targetMs) {
        ManualClock manual = (ManualClock) clock;
        loop.call(() -> {
            while (!clusterTimers.isEmpty() && clusterTimers.first().deadline <= targetMs) {
                Timer t = clusterTimers.pollFirst();
                manual.set(Math.max(manual.milliseconds(), t.deadline));
                fire(t);
            }
            manual.set(targetMs);
            return null;
        });
    }

    private void fire(Timer t) {
        byKey.remove(t.key, t);
        loop.runSafely(t.task, "timer " + t.key);
    }


    private static long saturatedAdd(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
    }
}
