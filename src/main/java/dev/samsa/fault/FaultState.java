package dev.samsa.fault;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * The faults in force, and what each one does. Owned by the cluster loop; the public {@code Faults} and
 * {@code Broker} handles change it through the loop and record each change on the timeline.
 *
 * <ul>
 *   <li><b>Requests</b> meet {@link #onRequest}, once, on the loop, before their handler: the
 *       {@linkplain #interceptors() interceptors} first (an injected error answers at once), then the broker's added
 *       latency, which delays the handling in wall time.</li>
 *   <li><b>Replication</b> from a leader to a follower flows only while {@link #canReplicate} says so: the follower's
 *       fetching of that partition is not paused and neither broker is cut off from the others. The fetcher asks
 *       before every fetch; the controller fences a broker when it is cut off and lets it back when healed. Added
 *       latency slows replication too: a follower's fetch arrives {@link #replicaFetchDelayMs} later, so a follower on
 *       a slow broker falls behind and leaves the ISR as a slow follower does.</li>
 *   <li><b>Transactions</b>: markers held per partition or leader, and one-shot actions on a transaction
 *       coordinator when a transactional id reaches a state ({@link TxnFaults}).</li>
 *   <li><b>Clients</b> of an isolated broker are refused by its listener, which is the network's business: this class
 *       keeps only the cut between brokers.</li>
 * </ul>
 */
public final class FaultState {

    private final RequestInterceptors interceptors = new RequestInterceptors();
    private final TxnFaults txn = new TxnFaults();
    private final Set<Integer> isolatedFromBrokers = new HashSet<>();
    private final Map<Integer, Long> latencyMs = new HashMap<>();
    private final Set<String> pausedFollowers = new HashSet<>();
    private final Map<ApiKeys, Error> unexpected = new ConcurrentHashMap<>();
    private long delayed;

    public RequestInterceptors interceptors() {
        return interceptors;
    }

    /** Held transaction markers and the triggers on a transaction coordinator: see {@link TxnFaults}. */
    public TxnFaults txn() {
        return txn;
    }

    /**
     * What happens to {@code request}: the verdict of the first interceptor that acts on it; otherwise, when its
     * broker has added latency, a delay by that much; otherwise a pass. A delay an interceptor asks for adds to the
     * broker's latency, as a slow request on a slow link would.
     */
    public Verdict onRequest(InterceptedRequest request) {
        Verdict verdict = interceptors.intercept(request);
        long latency = latencyMs(request.brokerId());
        return switch (verdict.action()) {
            case FAIL -> verdict;
            case DELAY -> Verdict.delay(verdict.delayMs() + latency);
            case PASS -> latency > 0 ? Verdict.delay(latency) : verdict;
        };
    }

    /** A timer key of its own for each delayed request. */
    public String nextDelayKey() {
        return "latency-" + (delayed++);
    }

    public void setLatency(int broker, long ms) {
        if (ms <= 0) {
            latencyMs.remove(broker);
        } else {
            latencyMs.put(broker, ms);
        }
    }

    private long latencyMs(int broker) {
        return latencyMs.getOrDefault(broker, 0L);
    }

    /**
     * How long, in wall time, a follower's fetch takes to reach its leader and come back: both brokers' added latency,
     * since the fetch and its answer cross both.
     */
    public long replicaFetchDelayMs(int leader, int follower) {
        return latencyMs(leader) + latencyMs(follower);
    }

    /** Whether records of {@code tp} can flow from {@code leader} to {@code follower}: see the class comment. */
    public boolean canReplicate(TopicPartition tp, int leader, int follower) {
        return !isPaused(tp, follower) && !isolatedFromBrokers.contains(leader) && !isolatedFromBrokers.contains(follower);
    }

    public void pause(TopicPartition tp, int follower) {
        pausedFollowers.add(tp + "@" + follower);
    }

    public void resume(TopicPartition tp, int follower) {
        pausedFollowers.remove(tp + "@" + follower);
    }

    private boolean isPaused(TopicPartition tp, int follower) {
        // Asked on every replica fetch: no key is built while nothing is paused.
        return !pausedFollowers.isEmpty() && pausedFollowers.contains(tp + "@" + follower);
    }

    /** Records an isolation of {@code broker}; only the cut from the other brokers is kept here (see the class comment). */
    public void isolate(int broker, boolean fromBrokers) {
        if (fromBrokers) {
            isolatedFromBrokers.add(broker);
        }
    }

    /**
     * Ends every isolation of {@code broker}.
     *
     * @return whether it had been cut off from the other brokers, so the controller must let it back
     */
    public boolean heal(int broker) {
        return isolatedFromBrokers.remove(broker);
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
}
