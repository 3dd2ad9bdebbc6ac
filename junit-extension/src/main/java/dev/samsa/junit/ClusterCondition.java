package dev.samsa.junit;

import java.util.concurrent.Callable;
import java.util.function.Function;
import java.util.function.Predicate;
import org.awaitility.core.ThrowingRunnable;

/**
 * A condition on a cluster that remembers what it saw last. Use it with Awaitility either way:
 *
 * <pre>{@code
 * awaitCluster().until(highWatermarkReached(cluster, "orders", 0, 3));         // a Callable<Boolean>
 * awaitCluster().untilAsserted(highWatermarkReached(cluster, "orders", 0, 3)); // timeout message says what it saw
 * }</pre>
 *
 * Awaitility names a {@code Callable} in its timeout message by class only; as a {@link ThrowingRunnable} the
 * condition fails with an {@link AssertionError} that Awaitility quotes: what it waits for and what it saw last.
 */
public final class ClusterCondition implements Callable<Boolean>, ThrowingRunnable {

    private final String description;
    private final Callable<Object> observe;
    private final Predicate<Object> done;
    private final Function<Object, String> show;
    private volatile String lastSeen = "nothing yet";

    @SuppressWarnings("unchecked")
    private <T> ClusterCondition(String description, Callable<T> observe, Predicate<T> done, Function<T, String> show) {
        this.description = description;
        this.observe = (Callable<Object>) observe;
        this.done = (Predicate<Object>) done;
        this.show = (Function<Object, String>) show;
    }

    static <T> ClusterCondition of(String description, Callable<T> observe, Predicate<T> done) {
        return new ClusterCondition(description, observe, done, String::valueOf);
    }

    static <T> ClusterCondition of(String description, Callable<T> observe, Predicate<T> done, Function<T, String> show) {
        return new ClusterCondition(description, observe, done, show);
    }

    /** Evaluates the condition once. */
    @Override
    public Boolean call() throws Exception {
        Object value = observe.call();
        lastSeen = show.apply(value);
        return done.test(value);
    }

    /**
     * Evaluates the condition once.
     *
     * @throws AssertionError naming the condition and what it saw, when it does not hold
     */
    @Override
    public void run() throws Exception {
        if (!call()) {
            throw new AssertionError("Expected " + this);
        }
    }

    @Override
    public String toString() {
        return description + " (last seen: " + lastSeen + ")";
    }
}
