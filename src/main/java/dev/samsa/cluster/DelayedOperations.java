package dev.samsa.cluster;

import dev.samsa.time.Scheduler;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * Kafka's purgatory: delayed operations watched by partition, re-checked when a watched partition changes, and
 * completed by a cluster-time timer and a wall-time cap, whichever comes first (a manual clock must never make a
 * real client time out). Owned by the cluster loop.
 */
public final class DelayedOperations {

    private final Scheduler scheduler;
    private record Watched(DelayedOperation op, String key) {
    }

    private final Map<TopicPartition, List<Watched>> watchers = new HashMap<>();
    private long ids;

    public DelayedOperations(Scheduler scheduler) {
        this.scheduler = scheduler;
    }

    /** Completes {@code op} now if it can; otherwise parks it on {@code keys} for at most {@code timeoutMs}. */
    public void tryCompleteElseWatch(DelayedOperation op, Iterable<TopicPartition> keys, long timeoutMs, String name) {
        if (op.tryComplete()) {
            return;
        }
        String key = "delayed-" + name + "-" + (ids++);
        Runnable expire = () -> {
            cancelTimers(key);
            for (TopicPartition tp : keys) {
                List<Watched> list = watchers.get(tp);
                if (list != null && list.removeIf(w -> w.op == op) && list.isEmpty()) {
                    watchers.remove(tp);
                }
            }
            op.forceComplete();
        };
        scheduler.scheduleAfter(key + "-cluster", timeoutMs, expire);
        scheduler.scheduleWall(key + "-wall", timeoutMs, expire);
        for (TopicPartition tp : keys) {
            watchers.computeIfAbsent(tp, k -> new ArrayList<>()).add(new Watched(op, key));
        }
    }

    /** Re-checks every operation watching {@code tp}, after an append or a high-watermark move. */
    public void checkAndComplete(TopicPartition tp) {
        List<Watched> ops = watchers.remove(tp);
        if (ops == null) {
            return;
        }
        List<Watched> still = new ArrayList<>();
        for (Watched w : ops) {
            if (w.op.isCompleted()) {
                continue;
            }
            if (w.op.tryComplete()) {
                cancelTimers(w.key);
            } else {
                still.add(w);
            }
        }
        if (!still.isEmpty()) {
            watchers.computeIfAbsent(tp, k -> new ArrayList<>()).addAll(still);
        }
    }

    /** Operations still parked, for tests that check a request really waits. */
    public int parked() {
        return (int) watchers.values().stream().flatMap(List::stream).map(Watched::op).filter(o -> !o.isCompleted()).distinct().count();
    }

    private void cancelTimers(String key) {
        scheduler.cancel(key + "-cluster");
        scheduler.cancel(key + "-wall");
    }
}
