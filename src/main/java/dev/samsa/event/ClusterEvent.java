package dev.samsa.event;

import java.time.Instant;

/** One entry of the timeline: what happened, at which cluster time, with the details a human needs. */
public record ClusterEvent(long timeMs, String type, String details) {

    @Override
    public String toString() {
        return Instant.ofEpochMilli(timeMs) + "  " + type + (details.isEmpty() ? "" : "  " + details);
    }
}
