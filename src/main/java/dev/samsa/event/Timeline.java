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

    public Timeline(LongSupplier clusterTimeMs) {
        this.clock = clusterTimeMs;
    }

    public synchronized void record(String type, String details) {
        events.add(new ClusterEvent(clock.getAsLong(), type, details));
        notifyAll();
    }

    public synchronized List<ClusterEvent> events() {
        return List.copyOf(events);
    }

    public List<ClusterEvent> matching(Predicate<ClusterEvent> predicate) {
        return events().stream().filter(predicate).toList();
    }

    @Override
    public String toString() {
        return events().stream().map(ClusterEvent::toString).collect(Collectors.joining("\n"));
    }
}
