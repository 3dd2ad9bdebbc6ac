package dev.samsa.time;

import java.time.Duration;

/**
 * A clock that a test moves. Reads may come from any thread; only the scheduler of the one cluster it is attached
 * to moves it, on the cluster loop, so timers see the time of their own deadline when they run.
 */
final class ManualClock extends ClusterClock {

    private volatile long nowMs;
    private LoopScheduler scheduler;

    ManualClock(long startMs) {
        this.nowMs = startMs;
    }

    @Override
    public long milliseconds() {
        return nowMs;
    }

    @Override
    public boolean isManual() {
        return true;
    }

    @Override
    public void advance(Duration duration) {
        if (duration.isNegative()) {
            throw new IllegalArgumentException("A cluster clock never goes backwards; got advance(" + duration + ")");
        }
        LoopScheduler attached;
        synchronized (this) {
            attached = scheduler;
        }
        long target = Math.addExact(nowMs, duration.toMillis());
        if (attached == null) {
            set(target);
        } else {
            attached.advanceTo(target);
        }
    }

    void set(long ms) {
        if (ms < nowMs) {
            throw new IllegalStateException("Clock moved backwards from " + nowMs + " to " + ms);
        }
        nowMs = ms;
    }

    @Override
    synchronized void attach(LoopScheduler scheduler) {
        if (this.scheduler != null && this.scheduler != scheduler) {
            throw new IllegalStateException("This manual clock already drives a running cluster; give each cluster its own clock");
        }
        this.scheduler = scheduler;
    }

    @Override
    synchronized void detach(LoopScheduler scheduler) {
        if (this.scheduler == scheduler) {
            this.scheduler = null;
        }
    }
}
