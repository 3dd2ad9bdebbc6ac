package dev.samsa.event;

import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;

/**
 * The horizontal axis of the HTML timeline: cluster time, with every event a column of its own. Events of the same
 * millisecond (a manual clock that did not move, an election of 2 ms) stand a step apart in their order (at least
 * {@link #MIN_STEP}, wider when few events leave room to write in the bands); a gap
 * of up to {@link #BREAK_MS} adds its length in pixels; a longer gap (a manual clock's jump of 45 s, a wall clock's
 * quiet second) is a break of fixed width labelled with its length, so a page stays as wide as its events, not its
 * duration.
 */
final class TimelineAxis {

    static final int MIN_STEP = 14;
    private static final int MAX_STEP = 90;
    static final long BREAK_MS = 250;
    static final int BREAK_WIDTH = 70;
    private static final double PX_PER_MS = 0.25;
    private static final int LABEL_SPACING = 96;
    private static final DateTimeFormatter TICK = DateTimeFormatter.ofPattern("HH:mm:ss.SSS").withZone(ZoneOffset.UTC);

    /** A stretch of time with nothing in it, drawn compressed between x0 and x1. */
    record Break(int x0, int x1, long ms) {
    }

    /** A tick at the first event of a new millisecond; labelled where there is room. */
    record Tick(int x, long timeMs, boolean labelled) {
    }

    private final int[] x;
    private final long[] times;
    private final List<Break> breaks = new ArrayList<>();
    private final List<Tick> ticks = new ArrayList<>();
    private final int start;
    private final int step;
    private final int end;

    /** @param width the width to fill when the events leave room, steps growing up to {@link #MAX_STEP} */
    TimelineAxis(List<TimedEvent> events, int start, int width) {
        this.start = start;
        x = new int[events.size()];
        times = new long[events.size()];
        long fixed = 0;
        for (int i = 1; i < events.size(); i++) {
            long gap = events.get(i).timeMs() - events.get(i - 1).timeMs();
            fixed += gap > BREAK_MS ? BREAK_WIDTH : Math.round(Math.max(0, gap) * PX_PER_MS);
        }
        int step = (int) Math.max(MIN_STEP, Math.min(MAX_STEP, (width - fixed) / (events.size() + 2)));
        this.step = step;
        int at = start + step;
        int lastLabel = Integer.MIN_VALUE / 2;
        for (int i = 0; i < events.size(); i++) {
            long t = events.get(i).timeMs();
            times[i] = t;
            if (i > 0) {
                long gap = t - times[i - 1];
                if (gap > BREAK_MS) {
                    breaks.add(new Break(at + step / 2, at + step / 2 + BREAK_WIDTH, gap));
                    at += step + BREAK_WIDTH;
                } else {
                    at += step + (int) Math.round(Math.max(0, gap) * PX_PER_MS);
                }
            }
            x[i] = at;
            if (i == 0 || t != times[i - 1]) {
                boolean labelled = at - lastLabel >= LABEL_SPACING;
                if (labelled) {
                    lastLabel = at;
                }
                ticks.add(new Tick(at, t, labelled));
            }
        }
        end = Math.max(at + 2 * step, width);
    }

    int step() {
        return step;
    }

    /** The middle of event {@code index}'s column; past the last event for {@code size()}. */
    int x(int index) {
        return index < x.length ? x[index] : end;
    }

    /** The column of the first event at or after {@code timeMs}, else the end. */
    int xAtTime(long timeMs) {
        for (int i = 0; i < times.length; i++) {
            if (times[i] >= timeMs) {
                return x[i];
            }
        }
        return end;
    }

    int start() {
        return start;
    }

    int end() {
        return end;
    }

    List<Break> breaks() {
        return breaks;
    }

    List<Tick> ticks() {
        return ticks;
    }

    static String tickLabel(long timeMs) {
        return TICK.format(java.time.Instant.ofEpochMilli(timeMs));
    }

    /** A gap as a person says it: "45 s", "1.5 s", "300 ms", "2 min 5 s", "3 h 20 min". */
    static String duration(long ms) {
        if (ms < 1_000) {
            return ms + " ms";
        }
        if (ms < 60_000) {
            return (ms % 1_000 == 0 ? Long.toString(ms / 1_000) : String.format(java.util.Locale.ROOT, "%.3f", ms / 1000.0)
                    .replaceAll("0+$", "")) + " s";
        }
        if (ms < 3_600_000) {
            long s = ms / 1_000;
            return s / 60 + " min" + (s % 60 == 0 ? "" : " " + s % 60 + " s");
        }
        long m = ms / 60_000;
        return m / 60 + " h" + (m % 60 == 0 ? "" : " " + m % 60 + " min");
    }
}
