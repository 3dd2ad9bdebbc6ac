package dev.samsa.junit;

import dev.samsa.BrokerError;
import dev.samsa.KafkaCluster;
import dev.samsa.event.ClusterTimeline;
import dev.samsa.event.TimedEvent;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Where one test's part of a cluster's timeline starts, and how it reads when the test fails.
 *
 * <p>The start is the number of events recorded before the test plus the last of them: the timeline coalesces a run
 * of same-kind events (high-watermark moves) by replacing its last entry, so an event that changed in place during
 * the test belongs to the test too. The number counts events the timeline has since dropped (it keeps only the most
 * recent ones), so the start stays put while old events go.
 *
 * @param count events recorded before the test, dropped ones included
 * @param last the last of them as it was then, or null when there were none
 * @param internalErrors the cluster's internal errors before the test
 */
record TimelineWindow(long count, TimedEvent last, int internalErrors) {

    static final TimelineWindow WHOLE = new TimelineWindow(0, null, 0);

    static TimelineWindow startingNow(KafkaCluster cluster) {
        ClusterTimeline.Snapshot snapshot = cluster.events().snapshot();
        List<TimedEvent> events = snapshot.events();
        int errors = cluster.internalErrors().size();
        return events.isEmpty() ? new TimelineWindow(snapshot.dropped(), null, errors)
                : new TimelineWindow(snapshot.dropped() + events.size(), events.get(events.size() - 1), errors);
    }

    /** The internal errors the cluster recorded during the test. */
    List<BrokerError> internalErrorsOf(KafkaCluster cluster) {
        List<BrokerError> all = cluster.internalErrors();
        return all.subList(Math.min(internalErrors, all.size()), all.size());
    }

    /**
     * The test's events the timeline still keeps.
     *
     * @param dropped how many of the test's events the timeline dropped before these
     */
    record Events(long dropped, List<TimedEvent> kept) {
    }

    Events eventsOf(KafkaCluster cluster) {
        ClusterTimeline.Snapshot snapshot = cluster.events().snapshot();
        List<TimedEvent> events = snapshot.events();
        // Where the window starts among the kept events; negative when the timeline has dropped part of the test.
        long from = Math.min(count - snapshot.dropped(), events.size());
        if (from > 0 && !events.get((int) from - 1).equals(last)) {
            from--;
        }
        if (from < 0) {
            return new Events(-from, new ArrayList<>(events));
        }
        return new Events(0, new ArrayList<>(events.subList((int) from, events.size())));
    }

    /** The report printed for a failed test: a header, then one aligned line per event. */
    static String report(String testName, KafkaCluster cluster, Events window) {
        List<TimedEvent> events = window.kept();
        StringBuilder out = new StringBuilder()
                .append("Samsa cluster timeline during ").append(testName)
                .append(" (seed ").append(cluster.seed())
                .append(", bootstrap.servers=").append(cluster.bootstrapServers())
                .append(", cluster time now ").append(cluster.clock().instant()).append("):\n");
        if (window.dropped() > 0) {
            out.append("  ... ").append(window.dropped()).append(" earlier events of this test dropped (the timeline keeps the last ")
                    .append(cluster.events().capacity()).append(")\n");
        }
        if (events.isEmpty()) {
            return out.append("  (no events during this test)").toString();
        }
        int timeWidth = "cluster time".length();
        int typeWidth = "event".length();
        for (TimedEvent e : events) {
            timeWidth = Math.max(timeWidth, Instant.ofEpochMilli(e.timeMs()).toString().length());
            typeWidth = Math.max(typeWidth, e.type().length());
        }
        String line = "  %-" + timeWidth + "s  %-" + typeWidth + "s  %s";
        out.append(String.format(line, "cluster time", "event", "details").stripTrailing());
        for (TimedEvent e : events) {
            out.append('\n').append(String.format(line, Instant.ofEpochMilli(e.timeMs()), e.type(), e.details()).stripTrailing());
        }
        return out.toString();
    }
}
