package dev.samsa.cluster;

import dev.samsa.event.Timeline;
import dev.samsa.fault.FaultState;
import dev.samsa.time.ClusterLoop;
import dev.samsa.time.Scheduler;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * Everything a handler may touch, in one place: metadata, timers, the purgatory, producer ids, the timeline, the
 * cluster's one seeded generator, and the services built on them once (controller, replica manager, replica fetcher,
 * reassignments, leader balancer, log retention, log cleaner, as a Kafka broker builds its own at startup). Owned by the cluster
 * loop.
 */
public final class ClusterState {

    private final ClusterLoop loop;
    private final ClusterMetadata metadata;
    private final DelayedOperations purgatory;
    private final ProducerIdManager producerIds;
    private final Timeline timeline;
    private final Random random;
    private final Map<ApiKeys, Long> requestCounts;
    private final FaultState faults;
    private final Controller controller;
    private final ReplicaManager replicaManager;
    private final ReplicaFetcher fetcher;
    private final Reassignments reassignments;
    private final LeaderBalancer leaderBalancer;
    private final LogRetention logRetention;
    private final LogCleaner logCleaner;
    private final ProduceHistory produceHistory;
    private final ConsumerHistory consumerHistory = new ConsumerHistory(ProduceHistory.DEFAULT_CAPACITY);
    private final ClientQuotas clientQuotas = new ClientQuotas();

    public ClusterState(ClusterLoop loop, ClusterMetadata metadata, DelayedOperations purgatory,
                        ProducerIdManager producerIds, Timeline timeline, Random random,
                        Map<ApiKeys, Long> requestCounts, FaultState faults) {
        this.loop = loop;
        this.metadata = metadata;
        this.purgatory = purgatory;
        this.producerIds = producerIds;
        this.timeline = timeline;
        this.produceHistory = new ProduceHistory(ProduceHistory.DEFAULT_CAPACITY, timeline);
        this.random = random;
        this.requestCounts = requestCounts;
        this.faults = faults;
        this.controller = new Controller(this);
        this.replicaManager = new ReplicaManager(this);
        this.fetcher = new ReplicaFetcher(this);
        this.reassignments = new Reassignments(this);
        this.leaderBalancer = new LeaderBalancer(this);
        this.logRetention = new LogRetention(this);
        this.logCleaner = new LogCleaner(this);
    }

    public ClusterLoop loop() {
        return loop;
    }

    public ClusterMetadata metadata() {
        return metadata;
    }

    public DelayedOperations purgatory() {
        return purgatory;
    }

    public ProducerIdManager producerIds() {
        return producerIds;
    }

    /** What the leaders acknowledged to producers, for the history check. */
    public ProduceHistory produceHistory() {
        return produceHistory;
    }

    /** What consumers were sent and what groups committed, for the history check. */
    public ConsumerHistory consumerHistory() {
        return consumerHistory;
    }

    /** The cluster's client quotas (AlterClientQuotas, DescribeClientQuotas). */
    public ClientQuotas clientQuotas() {
        return clientQuotas;
    }

    public Timeline timeline() {
        return timeline;
    }

    public Random random() {
        return random;
    }

    public FaultState faults() {
        return faults;
    }

    public Controller controller() {
        return controller;
    }

    public ReplicaManager replicaManager() {
        return replicaManager;
    }

    public ReplicaFetcher fetcher() {
        return fetcher;
    }

    public Reassignments reassignments() {
        return reassignments;
    }

    LeaderBalancer leaderBalancer() {
        return leaderBalancer;
    }

    LogRetention logRetention() {
        return logRetention;
    }

    public LogCleaner logCleaner() {
        return logCleaner;
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
