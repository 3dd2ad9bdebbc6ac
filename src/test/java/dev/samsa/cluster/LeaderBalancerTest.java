package dev.samsa.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.samsa.event.LeaderChanged;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The automatic preferred leader election on the domain alone, through the instance the cluster state built. Broker 1
 * is the preferred replica of partitions "a" and "b"; "a" has lost its leadership to broker 2.
 */
class LeaderBalancerTest {

    @TempDir
    Path dir;
    private ClusterFixture cluster;
    private Partition a;
    private Partition b;

    private void start(Map<String, String> configs) {
        Map<String, String> all = new HashMap<>(Map.of("leader.imbalance.check.interval.seconds", "10"));
        all.putAll(configs);
        cluster = new ClusterFixture(dir, 2, all);
        a = cluster.createTopic("a", List.of(1, 2));
        b = cluster.createTopic("b", List.of(1, 2));
        cluster.run(() -> cluster.state.controller().elect(a, 1, "moved away"));
        assertThat(cluster.call(a::leader)).isEqualTo(2);
        assertThat(cluster.isr(a.topicPartition())).as("broker 1 follows again").contains(1);
    }

    @AfterEach
    void close() {
        cluster.close();
    }

    private List<LeaderChanged> rebalances() {
        return cluster.events(LeaderChanged.class).stream().filter(e -> e.reason().equals("preferred leader rebalance")).toList();
    }

    @Test
    void aClockJumpPastTheIntervalMovesLeadershipBackToThePreferredReplica() {
        start(Map.of());
        cluster.run(() -> cluster.state.leaderBalancer().schedule());

        cluster.advance(9_999);
        assertThat(cluster.call(a::leader)).isEqualTo(2);

        cluster.advance(1);
        assertThat(cluster.call(a::leader)).isEqualTo(1);
        assertThat(cluster.call(b::leader)).isEqualTo(1);
        assertThat(rebalances()).singleElement().satisfies(e -> {
            assertThat(e.topic()).isEqualTo("a");
            assertThat(e.previousLeader()).isEqualTo(2);
            assertThat(e.leader()).isEqualTo(1);
        });
    }

    @Test
    void anImbalanceNotAboveThePercentageIsLeft() {
        start(Map.of("leader.imbalance.per.broker.percentage", "50"));

        cluster.run(() -> cluster.state.leaderBalancer().check());

        assertThat(cluster.call(a::leader)).as("one of two partitions not led is 50%, not above it").isEqualTo(2);
        assertThat(rebalances()).isEmpty();
    }

    @Test
    void autoLeaderRebalanceDisabledMovesNothing() {
        start(Map.of("auto.leader.rebalance.enable", "false"));

        cluster.run(() -> cluster.state.leaderBalancer().check());

        assertThat(cluster.call(a::leader)).isEqualTo(2);
        assertThat(rebalances()).isEmpty();
    }
}
