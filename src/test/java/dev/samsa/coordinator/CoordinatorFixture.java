package dev.samsa.coordinator;

import dev.samsa.cluster.ClusterFixture;
import dev.samsa.cluster.ClusterState;
import dev.samsa.cluster.Partition;
import dev.samsa.cluster.ReplicaAssignment;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.kafka.common.TopicPartition;

/**
 * The cluster domain without brokers or sockets ({@link ClusterFixture}), with the topic layouts and leader changes a
 * coordinator test needs. Everything that touches the state goes through {@link #call}.
 */
public final class CoordinatorFixture implements AutoCloseable {

    private final ClusterFixture cluster;
    public final ClusterState state;

    public CoordinatorFixture(Path dir, int brokers) {
        this(dir, brokers, Map.of());
    }

    public CoordinatorFixture(Path dir, int brokers, Map<String, String> brokerConfigs) {
        this.cluster = new ClusterFixture(dir, brokers, brokerConfigs);
        this.state = cluster.state;
    }

    public <T> T call(Callable<T> task) {
        return cluster.call(task);
    }

    public void run(Runnable task) {
        cluster.run(task);
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

    /** Moves wall time and runs the wall timers now due (see {@link ClusterFixture#advanceWall}). */
    public void advanceWall(long ms) {
        cluster.advanceWall(ms);
    }

    /** A controlled shutdown of {@code brokerId}: what it led moves to the next in-sync replica. */
    public void shutDown(int brokerId) {
        run(() -> state.controller().brokerStopped(brokerId, dev.samsa.cluster.Controller.Stop.SHUTDOWN, state.random()));
    }

    @Override
    public void close() {
        cluster.close();
    }
}
