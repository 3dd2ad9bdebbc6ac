package dev.samsa.event;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * The cluster's event timeline. Appended to on the cluster loop; read from any thread (reads take a snapshot). The
 * cluster's domain records into it; a test gets it as a {@link ClusterTimeline}, which only reads.
 *
 * <p>It keeps the most recent {@code capacity} events and counts the earlier ones it dropped: a cluster that runs for
 * hours (a soak test, a fuzzer, a standalone launcher) would otherwise hold every event it ever recorded.
 */
public final class Timeline implements ClusterTimeline {

    /**
     * Events kept by default. An event retained about 200 bytes when it kept its details as text (measured on the wire
     * fuzzer's cluster); as fields it retains about 150 (a mix of replication, fault and group events), so a full
     * timeline stays under about 20 MiB; an ordinary test records tens to a few thousand events and never reaches it.
     */
    public static final int DEFAULT_CAPACITY = 100_000;

    private final LongSupplier clock;
    private final LongSupplier wallMillis;
    private final int capacity;
    // A ring: the oldest kept event is at head. It grows up to capacity as events arrive, so a short test's cluster
    // does not pay for a full timeline up front.
    private TimedEvent[] ring;
    private int head;
    private int size;
    private long dropped;
    private String lastKey;
    private final List<ArmedTrigger> triggers = new ArrayList<>();
    private volatile Consumer<Runnable> triggerRunner = Runnable::run;
    private volatile Supplier<List<Finding>> findings = List::of;

    /**
     * @param clusterTimeMs stamps events
     * @param wallMillis bounds {@link #await}, which a test thread calls in wall time
     */
    public Timeline(LongSupplier clusterTimeMs, LongSupplier wallMillis) {
        this(clusterTimeMs, wallMillis, DEFAULT_CAPACITY);
    }

    /**
     * @param capacity how many of the most recent events to keep
     * @throws IllegalArgumentException when capacity is not positive
     */
    public Timeline(LongSupplier clusterTimeMs, LongSupplier wallMillis, int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("A timeline keeps at least one event; got capacity " + capacity);
        }
        this.clock = clusterTimeMs;
        this.wallMillis = wallMillis;
        this.capacity = capacity;
        // Never longer than capacity: once full, the ring's length is the capacity, which append relies on.
        this.ring = new TimedEvent[Math.min(16, capacity)];
    }

    /**
     * Appends an event stamped with the cluster time. An event of a stream (see {@link #coalescingKey}) replaces the
     * previous one when that was of the same stream with nothing in between, so a stream of high-watermark moves
     * reads as one line.
     */
    public void record(ClusterEvent event) {
        List<Runnable> due = new ArrayList<>(0);
        synchronized (this) {
            TimedEvent timed = new TimedEvent(clock.getAsLong(), event);
            String key = coalescingKey(event);
            if (key != null && size > 0 && key.equals(lastKey) && get(size - 1).type().equals(event.type())) {
                ring[slot(size - 1)] = timed;
            } else {
                append(timed);
            }
            lastKey = key;
            notifyAll();
            fire(event, due);
        }
        // Outside the lock: the runner may run an action at once, and an action records events of its own.
        due.forEach(triggerRunner);
    }

    /**
     * Fires the triggers {@code event} matches without keeping it: for events too frequent to be worth a line
     * ({@link RecordsAcknowledged}).
     */
    public void signal(ClusterEvent event) {
        List<Runnable> due = new ArrayList<>(0);
        synchronized (this) {
            fire(event, due);
        }
        due.forEach(triggerRunner);
    }

    private void fire(ClusterEvent event, List<Runnable> due) {
        for (ArmedTrigger trigger : List.copyOf(triggers)) {
            if (trigger.when.test(event)) {
                trigger.fired++;
                if (!trigger.repeat) {
                    triggers.remove(trigger);
                }
                due.add(trigger.action);
            }
        }
    }

    /** Where {@link #findings()} comes from: the cluster's history check. */
    public void findingsFrom(Supplier<List<Finding>> findings) {
        this.findings = Objects.requireNonNull(findings, "findings");
    }

    @Override
    public List<Finding> findings() {
        return findings.get();
    }

    /**
     * Where fired trigger actions go. The cluster hands them to its loop, to run once the step that recorded the event
     * is over; until one is set they run right after the event is recorded.
     */
    public void runTriggersWith(Consumer<Runnable> runner) {
        this.triggerRunner = Objects.requireNonNull(runner, "runner");
    }

    @Override
    public Trigger on(Predicate<? super ClusterEvent> when, Runnable action) {
        return arm(when, action, false);
    }

    @Override
    public Trigger onEvery(Predicate<? super ClusterEvent> when, Runnable action) {
        return arm(when, action, true);
    }

    private synchronized Trigger arm(Predicate<? super ClusterEvent> when, Runnable action, boolean repeat) {
        ArmedTrigger trigger = new ArmedTrigger(Objects.requireNonNull(when, "when"),
                Objects.requireNonNull(action, "action"), repeat);
        triggers.add(trigger);
        return trigger;
    }

    private final class ArmedTrigger implements Trigger {
        private final Predicate<? super ClusterEvent> when;
        private final Runnable action;
        private final boolean repeat;
        private int fired;

        ArmedTrigger(Predicate<? super ClusterEvent> when, Runnable action, boolean repeat) {
            this.when = when;
            this.action = action;
            this.repeat = repeat;
        }

        @Override
        public void cancel() {
            synchronized (Timeline.this) {
                triggers.remove(this);
            }
        }

        @Override
        public int fired() {
            synchronized (Timeline.this) {
                return fired;
            }
        }
    }

    /** Which stream an event belongs to, or null when it stands alone: only its latest state is worth a line. */
    private static String coalescingKey(ClusterEvent event) {
        if (event instanceof HighWatermark hw) {
            return hw.topic() + "-" + hw.partition();
        }
        if (event instanceof StaleLeaderAppend append) {
            return append.topic() + "-" + append.partition() + "@" + append.brokerId();
        }
        return null;
    }

    private void append(TimedEvent event) {
        if (size == capacity) {
            ring[head] = event; // the oldest goes, the newest takes its slot
            head = (head + 1) % ring.length;
            dropped++;
            return;
        }
        if (size == ring.length) {
            // Only reached before anything was dropped, so head is 0 and the events are in order.
            ring = Arrays.copyOf(ring, (int) Math.min(capacity, 2L * ring.length));
        }
        ring[slot(size)] = event;
        size++;
    }

    private int slot(int index) {
        return (head + index) % ring.length;
    }

    private TimedEvent get(int index) {
        return ring[slot(index)];
    }

    @Override
    public TimedEvent await(Predicate<TimedEvent> predicate, Duration timeout) {
        long deadline = wallMillis.getAsLong() + timeout.toMillis();
        synchronized (this) {
            // Position (counting dropped events) of the first event not yet tested. The last event is tested again on
            // each wake, since coalescing may have replaced it; the rest never change, so a long timeline is not
            // rescanned for every new event.
            long untested = dropped;
            while (true) {
                for (int i = (int) (Math.max(untested, dropped) - dropped); i < size; i++) {
                    TimedEvent e = get(i);
                    if (predicate.test(e)) {
                        return e;
                    }
                }
                untested = dropped + Math.max(0, size - 1);
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

    @Override
    public List<TimedEvent> events() {
        return snapshot().events();
    }

    @Override
    public synchronized long dropped() {
        return dropped;
    }

    @Override
    public int capacity() {
        return capacity;
    }

    @Override
    public synchronized Snapshot snapshot() {
        List<TimedEvent> kept = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            kept.add(get(i));
        }
        return new Snapshot(dropped, List.copyOf(kept));
    }

    /**
     * The timeline as text, one event per line: cluster time, type, details; led by a line saying how many earlier
     * events were dropped, if any were.
     */
    @Override
    public String toString() {
        Snapshot snapshot = snapshot();
        String lines = snapshot.events().stream().map(TimedEvent::toString).collect(Collectors.joining("\n"));
        if (snapshot.dropped() == 0) {
            return lines;
        }
        return "... " + snapshot.dropped() + " earlier events dropped (the timeline keeps the last " + capacity + ")"
                + (lines.isEmpty() ? "" : "\n" + lines);
    }
}
