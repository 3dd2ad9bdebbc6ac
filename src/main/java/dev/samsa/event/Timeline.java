package dev.samsa.event;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * The cluster's event timeline. Appended to on the cluster loop; read from any thread (reads take a snapshot).
 */
public final class Timeline {

    private final List<ClusterEvent> events = new ArrayList<>();
    private final LongSupplier clock;
    private final LongSupplier wallMillis;
    private String lastKey;

    /**
     * @param clusterTimeMs stamps events
     * @param wallMillis bounds {@link #await}, which a test thread calls in wall time
     */
    public Timeline(LongSupplier clusterTimeMs, LongSupplier wallMillis) {
        this.clock = clusterTimeMs;
        this.wallMillis = wallMillis;
    }

    public synchronized void record(String type, String details) {
        events.add(new ClusterEvent(clock.getAsLong(), type, details));
        lastKey = null;
        notifyAll();
    }

    /**
     * Records an event that replaces the previous one when that was of the same type and key with nothing in between,
     * so a stream of high-watermark moves reads as one line.
     */
    public synchronized void recordCoalesced(String type, String key, String details) {
        if (!events.isEmpty() && key.equals(lastKey) && events.get(events.size() - 1).type().equals(type)) {
            events.set(events.size() - 1, new ClusterEvent(clock.getAsLong(), type, details));
        } else {
            events.add(new ClusterEvent(clock.getAsLong(), type, details));
        }
        lastKey = key;
        notifyAll();
    }

    /**
     * Waits, in wall time, for an event matching {@code predicate}, and returns the first one.
     *
     * @throws IllegalStateException naming the timeline when none arrived in time
     */
    public ClusterEvent await(Predicate<ClusterEvent> predicate, java.time.Duration timeout) {
        long deadline = wallMillis.getAsLong() + timeout.toMillis();
        synchronized (this) {
            while (true) {
                for (ClusterEvent e : events) {
                    if (predicate.test(e)) {
                        return e;
                    }
                }
                long left = deadline - wallMillis.getAsLong();
                if (left <= 0) {
                    throw new IllegalStateException("No matching event within " + timeout + "; the timeline is:\n" + this);
                }
                try {
                    wait(left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("Interrupted while awaiting an event", e);
                }
            }
        }
    }

    public synchronized List<ClusterEvent> events() {
        return List.copyOf(events);
    }

    public List<ClusterEvent> matching(Predicate<ClusterEvent> predicate) {
        return events().stream().filter(predicate).toList();
    }

    /** The timeline as text, one event per line: cluster time, type, details. */
    @Override
    public String toString() {
        return events().stream().map(ClusterEvent::toString).collect(Collectors.joining("\n"));
    }
}
