package dev.samsa.cluster;

import dev.samsa.event.Timeline;
import dev.samsa.fault.FaultState;
import dev.samsa.time.ClusterLoop;
import dev.samsa.time.Scheduler;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * Everything a handler may touch, in one place: metadata, timers, the purgatory, producer ids, the timeline and the
 * cluster's one seeded generator. Owned by the cluster loop.
 */
public record ClusterState(ClusterLoop loop, ClusterMetadata metadata, DelayedOperations purgatory,
                           ProducerIdManager producerIds, Timeline timeline, Random random,
                           Map<ApiKeys, Long> requestCounts,
                           FaultState faults) {

    public Controller controller() {
        return new Controller(this);
    }

    public ReplicaFetcher fetcher() {
        return new ReplicaFetcher(this);
    }

    /** Requests handled per API since start, for tests and benchmarks. */
    public Map<ApiKeys, Long> requestCounts() {
        return requestCounts;
    }

    public Scheduler scheduler() {
        return loop.scheduler();
    }

    public long nowMs() {
        return loop.clock().milliseconds();
    }
}
