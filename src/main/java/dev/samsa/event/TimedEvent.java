package dev.samsa.event;

import java.time.Instant;

/** One entry of the timeline: an event and the cluster time it happened at. */
public record TimedEvent(long timeMs, ClusterEvent event) {

    public String type() {
        return event.type();
    }

    public String details() {
        return event.details();
    }

    /** The line the timeline prints: cluster time, type, details. */
    @Override
    public String toString() {
        String details = details();
        return Instant.ofEpochMilli(timeMs) + "  " + type() + (details.isEmpty() ? "" : "  " + details);
    }
}
