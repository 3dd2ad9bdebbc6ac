package dev.samsa.fault;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * The transaction faults in force, owned by the cluster loop.
 *
 * <ul>
 *   <li><b>Held markers.</b> The transaction coordinator asks {@link #holdMarker} before it appends a COMMIT or ABORT
 *       marker; a marker for a held partition, or for a partition led by a held broker, is queued instead, and its
 *       transaction stays prepared. Released, every queued marker is sent again, to whoever leads its partition then
 *       (one still held queues again). This is the window in which a crash tears a transaction: some partitions have
 *       their marker, others wait.</li>
 *   <li><b>Coordinator triggers.</b> One-shot actions (crash, isolate) on the coordinator of a transactional id, run
 *       the moment a record moving that id to a chosen state is replicated, before the coordinator answers or writes
 *       a marker.</li>
 * </ul>
 */
public final class TxnFaults {

    private final Set<TopicPartition> heldPartitions = new HashSet<>();
    private final Set<Integer> heldLeaders = new HashSet<>();
    private final List<Runnable> queued = new ArrayList<>();
    private final Map<String, Map<String, IntConsumer>> triggers = new HashMap<>();

    public void hold(TopicPartition tp) {
        heldPartitions.add(tp);
    }

    public void holdLeader(int brokerId) {
        heldLeaders.add(brokerId);
    }

    /**
     * Whether the marker for {@code tp}, led by {@code leader}, is held; if so {@code send} is queued until a release.
     */
    public boolean holdMarker(TopicPartition tp, int leader, Runnable send) {
        if (!heldPartitions.contains(tp) && !heldLeaders.contains(leader)) {
            return false;
        }
        queued.add(send);
        return true;
    }

    /** Ends the hold of {@code tp}; returns the queued markers, for the caller to send again. */
    public List<Runnable> release(TopicPartition tp) {
        heldPartitions.remove(tp);
        return drain();
    }

    /** Ends the hold of the partitions {@code brokerId} leads; returns the queued markers, for the caller to send again. */
    public List<Runnable> releaseLeader(int brokerId) {
        heldLeaders.remove(brokerId);
        return drain();
    }

    private List<Runnable> drain() {
        List<Runnable> all = List.copyOf(queued);
        queued.clear();
        return all;
    }

    /**
     * Arms {@code action}, given the coordinator's broker id, for the first replicated move of {@code transactionalId}
     * to {@code state} (Kafka's name, "PrepareCommit"); one action per id and state, the last armed wins.
     */
    public void onState(String transactionalId, String state, IntConsumer action) {
        triggers.computeIfAbsent(transactionalId, id -> new HashMap<>()).put(state, action);
    }

    /**
     * The coordinator {@code coordinator} replicated a move of {@code transactionalId} to {@code state}: runs and
     * disarms the action armed for it, if any.
     *
     * @return whether an action ran
     */
    public boolean stateReplicated(String transactionalId, String state, int coordinator) {
        Map<String, IntConsumer> byState = triggers.get(transactionalId);
        IntConsumer action = byState == null ? null : byState.remove(state);
        if (action == null) {
            return false;
        }
        if (byState.isEmpty()) {
            triggers.remove(transactionalId);
        }
        action.accept(coordinator);
        return true;
    }
}
