package dev.samsa.time;

final class SystemClock extends ClusterClock {

    @Override
    public long milliseconds() {
        return System.currentTimeMillis();
    }

    @Override
    void attach(LoopScheduler scheduler) {
    }

    @Override
    void detach(LoopScheduler scheduler) {
    }
}
