package dev.samsa.fault;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * The faults in force: network cuts, injected request failures and added latency. Owned by the cluster loop; the
 * public {@code Faults} handle changes it through the loop and records each change on the timeline.
 */
public final class FaultState {

    private record Failure(Errors error, int[] remaining) {
    }

    private final Set<Integer> isolatedFromBrokers = new HashSet<>();
    private final Map<ApiKeys, Deque<Failure>> failures = new EnumMap<>(ApiKeys.class);
    private final Map<Integer, Long> latencyMs = new HashMap<>();
    private final Set<String> pausedFollowers = new HashSet<>();

    public void pause(TopicPartition tp, int follower) {
        pausedFollowers.add(tp + "@" + follower);
    }

    public void resume(TopicPartition tp, int follower) {
        pausedFollowers.remove(tp + "@" + follower);
    }

    public boolean isPaused(TopicPartition tp, int follower) {
        return pausedFollowers.contains(tp + "@" + follower);
    }

    /** Whether records can flow from {@code leader} to {@code follower} over the inter-broker network. */
    public boolean canReplicate(int leader, int follower) {
        return !isolatedFromBrokers.contains(leader) && !isolatedFromBrokers.contains(follower);
    }

    public boolean isIsolatedFromBrokers(int broker) {
        return isolatedFromBrokers.contains(broker);
    }

    /** Client isolation is the listener's business (it refuses connections); this records the cut between brokers. */
    public void isolate(int broker, boolean fromBrokers) {
        if (fromBrokers) {
            isolatedFromBrokers.add(broker);
        }
    }

    public void heal(int broker) {
        isolatedFromBrokers.remove(broker);
    }

    public void failNext(ApiKeys api, Errors error, int count) {
        failures.computeIfAbsent(api, k -> new ArrayDeque<>()).add(new Failure(error, new int[] {count}));
    }

    /** The error to answer this request with, if a failure is pending for its API; counts it down. */
    public Errors takeFailure(ApiKeys api) {
        Deque<Failure> pending = failures.get(api);
        if (pending == null || pending.isEmpty()) {
            return null;
        }
        Failure next = pending.peek();
        if (--next.remaining[0] <= 0) {
            pending.poll();
        }
        return next.error;
    }

    /**
     * For Samsa's own tests of its failure handling: the next request of {@code api} meets {@code error} on its
     * connection's reader thread, as a bug or a broken classpath would. The only part of this class read off the loop.
     */
    public void failNextUnexpectedly(ApiKeys api, Error error) {
        unexpected.put(api, error);
    }

    /** @throws Error the error set by {@link #failNextUnexpectedly} for {@code api}, once */
    public void throwIfUnexpectedFailurePending(ApiKeys api) {
        Error error = unexpected.remove(api);
        if (error != null) {
            throw error;
        }
    }

    private final Map<ApiKeys, Error> unexpected = new java.util.concurrent.ConcurrentHashMap<>();

    public void setLatency(int broker, long ms) {
        if (ms <= 0) {
            latencyMs.remove(broker);
        } else {
            latencyMs.put(broker, ms);
        }
    }

    private long delayed;

    /** A timer key of its own for each delayed request. */
    public String nextDelayKey() {
        return "latency-" + (delayed++);
    }

    public long latencyMs(int broker) {
        return latencyMs.getOrDefault(broker, 0L);
    }
}
