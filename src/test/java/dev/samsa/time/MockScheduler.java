package dev.samsa.time;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * A thread-free {@link Scheduler} for unit tests of the domain, as Kafka's {@code MockCoordinatorTimer}: timers fire
 * only when the test moves time, in deadline order, each at its own time, and {@code advance} returns the keys that
 * fired so a test can assert which ones did.
 *
 * <p>Cluster time and wall time move separately, as under {@link ClusterClock#manual}: {@link #advance} is a jump of
 * the cluster clock (wall time stands still, as it nearly does during a real {@code advance}), {@link #advanceWall}
 * is wall time passing while the cluster clock stands still. With {@code manualClock == false} the two move together,
 * as under the system clock.
 */
public final class MockScheduler implements Scheduler {

    private record Timer(String key, long deadline, long seq, boolean wall, Runnable task) implements Comparable<Timer> {
        @Override
        public int compareTo(Timer o) {
            int c = Long.compare(deadline, o.deadline);
            return c != 0 ? c : Long.compare(seq, o.seq);
        }
    }

    private final boolean manualClock;
    private long nowMs;
    private long wallMs;
    private long seq;
    private final TreeSet<Timer> clusterTimers = new TreeSet<>();
    private final TreeSet<Timer> wallTimers = new TreeSet<>();
    private final Map<String, Timer> byKey = new HashMap<>();

    public MockScheduler(boolean manualClock, long startMs, long startWallMs) {
        this.manualClock = manualClock;
        this.nowMs = startMs;
        this.wallMs = startWallMs;
    }

    /** A manual cluster clock at 0 ms and a wall clock at 0 ms. */
    public static MockScheduler manual() {
        return new MockScheduler(true, 0, 0);
    }

    @Override
    public long nowMs() {
        return nowMs;
    }

    @Override
    public long wallMs() {
        return wallMs;
    }

    @Override
    public boolean manualClock() {
        return manualClock;
    }

    @Override
    public void schedule(String key, long deadlineMs, Runnable task) {
        cancel(key);
        Timer t = new Timer(key, deadlineMs, seq++, false, task);
        byKey.put(key, t);
        clusterTimers.add(t);
    }

    @Override
    public void scheduleWall(String key, long delayMs, Runnable task) {
        cancel(key);
        Timer t = new Timer(key, wallMs + delayMs, seq++, true, task);
        byKey.put(key, t);
        wallTimers.add(t);
    }

    @Override
    public boolean cancel(String key) {
        Timer t = byKey.remove(key);
        if (t == null) {
            return false;
        }
        (t.wall ? wallTimers : clusterTimers).remove(t);
        return true;
    }

    @Override
    public boolean isScheduled(String key) {
        return byKey.containsKey(key);
    }

    /** Whether {@code key} is a wall-time timer now, as the liveness rule arms one while a member may still be talking. */
    public boolean isScheduledInWallTime(String key) {
        Timer t = byKey.get(key);
        return t != null && t.wall;
    }

    /**
     * Moves cluster time forward by {@code ms}, firing every cluster timer that falls due, in order, at its own time
     * (a timer that schedules another within the jump sees it fire too). Under the system clock wall time moves along
     * and wall timers fire as well.
     *
     * @return the keys of the timers that fired, in the order they did
     */
    public List<String> advance(long ms) {
        if (ms < 0) {
            throw new IllegalArgumentException("Time never goes backwards; got advance(" + ms + ")");
        }
        long target = nowMs + ms;
        long wallTarget = manualClock ? wallMs : wallMs + ms;
        List<String> fired = new ArrayList<>();
        while (true) {
            Timer next = earliestDue(target, wallTarget);
            if (next == null) {
                break;
            }
            if (next.wall) {
                long step = next.deadline - wallMs;
                wallMs = next.deadline;
                nowMs = manualClock ? nowMs : nowMs + step;
            } else {
                long step = Math.max(0, next.deadline - nowMs);
                nowMs += step;
                wallMs = manualClock ? wallMs : wallMs + step;
            }
            fire(next, fired);
        }
        nowMs = target;
        wallMs = wallTarget;
        return fired;
    }

    /**
     * Moves wall time forward by {@code ms} with the cluster clock standing still, firing the wall timers that fall due.
     *
     * @return the keys of the timers that fired, in the order they did
     * @throws IllegalStateException under the system clock, where wall time and cluster time move together
     */
    public List<String> advanceWall(long ms) {
        if (!manualClock) {
            throw new IllegalStateException("Under the system clock wall time moves with cluster time; use advance");
        }
        if (ms < 0) {
            throw new IllegalArgumentException("Time never goes backwards; got advanceWall(" + ms + ")");
        }
        long target = wallMs + ms;
        List<String> fired = new ArrayList<>();
        while (!wallTimers.isEmpty() && wallTimers.first().deadline <= target) {
            Timer next = wallTimers.first();
            wallMs = Math.max(wallMs, next.deadline);
            fire(next, fired);
        }
        wallMs = target;
        return fired;
    }

    private Timer earliestDue(long target, long wallTarget) {
        Timer cluster = clusterTimers.isEmpty() || clusterTimers.first().deadline > target ? null : clusterTimers.first();
        Timer wall = wallTimers.isEmpty() || wallTimers.first().deadline > wallTarget ? null : wallTimers.first();
        if (cluster == null || wall == null) {
            return cluster != null ? cluster : wall;
        }
        // Under the system clock both run on one time line: the one due first in it fires first.
        return cluster.deadline - nowMs <= wall.deadline - wallMs ? cluster : wall;
    }

    private void fire(Timer t, List<String> fired) {
        (t.wall ? wallTimers : clusterTimers).remove(t);
        byKey.remove(t.key, t);
        fired.add(t.key);
        t.task.run();
    }
}
