package dev.samsa.coordinator;

import dev.samsa.cluster.BrokerConfigs;
import dev.samsa.cluster.BrokerInfo;
import dev.samsa.cluster.ClusterMetadata;
import dev.samsa.cluster.ClusterState;
import dev.samsa.cluster.DelayedOperations;
import dev.samsa.cluster.Partition;
import dev.samsa.cluster.ProducerIdManager;
import dev.samsa.cluster.ReplicaAssignment;
import dev.samsa.event.Timeline;
import dev.samsa.fault.FaultState;
import dev.samsa.log.store.MappedStores;
import dev.samsa.time.ClusterClock;
import dev.samsa.time.ClusterLoop;
import java.nio.file.Path;
import java.time.Instant;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * The cluster domain without brokers or sockets, for a coordinator on its own loop: brokers registered, a manual
 * cluster clock, and the leader changes a test needs. Everything that touches the state goes through {@link #call}.
 */
public final class CoordinatorFixture implements AutoCloseable {

    private final ClusterLoop loop;
    public final ClusterState state;

    public CoordinatorFixture(Path dir, int brokers) {
        this(dir, brokers, Map.of());
    }

    public CoordinatorFixture(Path dir, int brokers, Map<String, String> brokerConfigs) {
        ClusterClock clock = ClusterClock.manual(Instant.parse("2026-01-01T00:00:00Z"));
        this.loop = new ClusterLoop("coordinator-fixture-loop", clock, (brokerId, error) -> { }, () -> 0L);
        this.state = loop.call(() -> {
            Random random = new Random(0);
            Timeline timeline = new Timeline(clock::milliseconds, () -> 0L);
            ClusterMetadata metadata = new ClusterMetadata(dir, MappedStores.detect(), random, timeline, clock::milliseconds);
            for (int id = 1; id <= brokers; id++) {
                Map<String, String> configs = new HashMap<>(brokerConfigs);
                configs.put("broker.id", Integer.toString(id));
                metadata.registerBroker(new BrokerInfo(id, "127.0.0.1", 0, null), new BrokerConfigs(configs, new HashMap<>()));
            }
            return new ClusterState(loop, metadata, new DelayedOperations(loop.scheduler()), new ProducerIdManager(metadata),
                    timeline, random, new EnumMap<>(ApiKeys.class), new FaultState());
        });
    }

    public <T> T call(Callable<T> task) {
        return loop.call(task);
    }

    public void run(Runnable task) {
        loop.call(() -> {
            task.run();
            return null;
        });
    }

    /** Creates {@code name} with one partition per replica list, the first replica its leader. */
    public void createTopic(String name, List<List<Integer>> replicas) {
        run(() -> {
            List<ReplicaAssignment> assignments = new java.util.ArrayList<>();
            for (int p = 0; p < replicas.size(); p++) {
                assignments.add(new ReplicaAssignment(p, replicas.get(p)));
            }
            state.metadata().createTopic(name, -1, -1, assignments, Map.of(), false);
        });
    }

    public Partition partition(TopicPartition tp) {
        return call(() -> state.metadata().partition(tp));
    }

    /** The follower stops fetching {@code tp}: nothing written from now on reaches the high watermark. */
    public void pauseFollower(TopicPartition tp, int follower) {
        run(() -> state.fetcher().pause(state.metadata().partition(tp), follower));
    }

    public void resumeFollower(TopicPartition tp, int follower) {
        run(() -> {
            state.faults().resume(tp, follower);
            state.fetcher().replicateSoon(state.metadata().partition(tp));
        });
    }

    /** A controlled shutdown of {@code brokerId}: what it led moves to the next in-sync replica. */
    public void shutDown(int brokerId) {
        run(() -> state.controller().brokerStopped(brokerId, dev.samsa.cluster.Controller.Stop.SHUTDOWN, state.random()));
    }

    @Override
    public void close() {
        try {
            run(() -> state.metadata().close());
        } finally {
            loop.close();
        }
    }
}
