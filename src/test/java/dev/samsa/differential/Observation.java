package dev.samsa.differential;

import java.util.Collections;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * What a scenario saw, as plain comparable values: a sorted map of key to string (records, offsets, error names, group
 * states, config values and sources), and timer ratios (a measured time over the configured one), compared within a
 * tolerance. Two targets agree when both maps are equal, ratios within {@link #RATIO_TOLERANCE}.
 */
final class Observation {

    /** Two ratios agree when they differ by at most this fraction of Kafka's. */
    static final double RATIO_TOLERANCE = 0.10;

    private final SortedMap<String, String> values = new TreeMap<>();
    private final SortedMap<String, Double> ratios = new TreeMap<>();

    /** Throws what a body may throw; its value goes into the observation. */
    @FunctionalInterface
    interface Action {
        Object call() throws Exception;
    }

    void put(String key, Object value) {
        if (values.putIfAbsent(key, String.valueOf(value)) != null) {
            throw new IllegalStateException("A scenario observed " + key + " twice");
        }
    }

    /** A measured duration over the configured one: compared within {@link #RATIO_TOLERANCE}, not exactly. */
    void ratio(String key, long measuredMs, long configuredMs) {
        ratios.put(key, (double) measuredMs / configuredMs);
    }

    /** Runs {@code action} and records "ok" with its value, or the name of the exception it threw. */
    Object outcome(String key, Action action) {
        try {
            Object value = action.call();
            put(key, value == null ? "ok" : "ok " + value);
            return value;
        } catch (Exception e) {
            put(key, error(e));
            return null;
        }
    }

    /** The exception a user's code catches: wrappers of futures unwrapped, only the class's simple name. */
    static String error(Throwable t) {
        Throwable e = t;
        while ((e instanceof ExecutionException || e instanceof CompletionException) && e.getCause() != null) {
            e = e.getCause();
        }
        return e.getClass().getSimpleName();
    }

    SortedMap<String, String> values() {
        return Collections.unmodifiableSortedMap(values);
    }

    SortedMap<String, Double> ratios() {
        return Collections.unmodifiableSortedMap(ratios);
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder();
        values.forEach((k, v) -> s.append("  ").append(k).append(" = ").append(v).append('\n'));
        ratios.forEach((k, v) -> s.append("  ").append(k).append(" ~ ").append(String.format("%.3f", v)).append('\n'));
        return s.toString();
    }
}
