package dev.samsa.event;

import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;

/**
 * The cluster's event timeline as a test sees it: it can read, await and print the events, not record them. Safe to
 * read from any thread while the cluster goes on recording.
 */
public interface ClusterTimeline {

    /** The kept events, oldest first. */
    List<TimedEvent> events();

    /** The kept events of one kind, oldest first: {@code events(Truncated.class)}. */
    default <T extends ClusterEvent> List<T> events(Class<T> kind) {
        return events().stream().map(TimedEvent::event).filter(kind::isInstance).map(kind::cast).toList();
    }

    default List<TimedEvent> matching(Predicate<TimedEvent> predicate) {
        return events().stream().filter(predicate).toList();
    }

    /**
     * Waits, in wall time, for an event matching {@code predicate} among the kept events, and returns the first one.
     *
     * @throws IllegalStateException naming the timeline when none arrived in time
     */
    TimedEvent await(Predicate<TimedEvent> predicate, Duration timeout);

    /**
     * Waits, in wall time, for an event of one kind matching {@code predicate}, and returns the first one:
     * {@code await(Truncated.class, t -> t.brokerId() == 2, timeout)}.
     *
     * @throws IllegalStateException naming the timeline when none arrived in time
     */
    default <T extends ClusterEvent> T await(Class<T> kind, Predicate<? super T> predicate, Duration timeout) {
        return kind.cast(await(e -> kind.isInstance(e.event()) && predicate.test(kind.cast(e.event())), timeout).event());
    }

    /**
     * Arms {@code action} to run once, on the cluster loop, when an event matching {@code when} is recorded: after the
     * step that recorded it and before the loop takes anything else, so no request slips in between. The action may
     * apply any public fault ({@code broker.crash()}, {@code faults().isolate(..)}, ...); events it records may fire
     * other triggers. An action that throws is reported as an internal error of the cluster.
     */
    Trigger on(java.util.function.Predicate<? super ClusterEvent> when, Runnable action);

    /** As {@link #on}, but fires on every matching event until {@link Trigger#cancel()}. */
    Trigger onEvery(java.util.function.Predicate<? super ClusterEvent> when, Runnable action);

    /**
     * Writes the kept events as one self-contained HTML page that fetches nothing: lanes over a cluster-time axis (a
     * long quiet stretch compressed and labelled with its length) for the faults (applied to healed), each broker, each
     * partition (its leader and leader epoch, its ISR, red below min.insync.replicas, high-watermark moves), each
     * consumer group (its states, generations and members) and each transactional id; a legend; every event as a table
     * row linked to its mark; and the history check's lost, duplicated and skipped records, each loss with the fault that
     * lost it.
     *
     * @return {@code path}
     */
    default java.nio.file.Path writeHtml(java.nio.file.Path path) {
        return writeHtml(path, null);
    }

    /**
     * As {@link #writeHtml(java.nio.file.Path)}, with {@code title} (a test's class and method, say) naming the page.
     *
     * @param title what the page is about, or null
     * @return {@code path}
     */
    default java.nio.file.Path writeHtml(java.nio.file.Path path, String title) {
        try {
            java.nio.file.Path parent = path.toAbsolutePath().getParent();
            if (parent != null) {
                java.nio.file.Files.createDirectories(parent);
            }
            return java.nio.file.Files.writeString(path, TimelineHtml.render(snapshot(), findings(), title));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("Cannot write the timeline to " + path, e);
        }
    }

    /** What the cluster's history check finds now (lost, duplicated records), for {@link #writeHtml}. */
    default List<Finding> findings() {
        return List.of();
    }

    /** How many of the earliest events were dropped to stay within the capacity. */
    long dropped();

    /** How many of the most recent events the timeline keeps. */
    int capacity();

    /**
     * The kept events together with how many came before them, read at one instant, so that a reader can tell where
     * an event stands among all events ever recorded ({@code dropped + index}) while the cluster goes on recording.
     */
    Snapshot snapshot();

    /**
     * @param dropped events recorded before {@code events} and no longer kept
     * @param events the kept events, oldest first
     */
    record Snapshot(long dropped, List<TimedEvent> events) {
    }
}
