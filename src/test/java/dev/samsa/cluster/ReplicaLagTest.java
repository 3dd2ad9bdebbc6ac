package dev.samsa.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.samsa.event.IsrShrunk;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The leader's ISR lag check (Kafka's Partition.maybeShrinkIsr), driven by what the followers' fetches tell the
 * leader, whatever keeps a follower from fetching. replica.lag.time.max.ms is 10 s here; injected latency holds a
 * follower's fetch in flight for 5 s of wall time, which only the test moves.
 */
class ReplicaLagTest {

    private static final TopicPartition TP = new TopicPartition("lagging", 0);
    private static final Map<String, String> TEN_SECOND_LAG = Map.of("replica.lag.time.max.ms", "10000");

    @TempDir
    Path dir;

    @Test
    void shouldKeepACaughtUpFollowerInSyncHoweverLongNothingIsWritten() {
        try (ClusterFixture cluster = new ClusterFixture(dir, 2, TEN_SECOND_LAG)) {
            cluster.createTopic(TP.topic(), List.of(1, 2));
            cluster.append(TP, "a");
            // A day without writes: the follower has everything, nothing to fetch, and no reason to leave.
            cluster.advance(Duration.ofDays(1).toMillis());
            assertThat(cluster.isr(TP)).containsExactly(1, 2);
            assertThat(cluster.events(IsrShrunk.class)).isEmpty();
        }
    }

    @Test
    void shouldDropAFollowerSlowedByLatencyOnceBehindForLongerThanTheLimitAndTakeItBackWhenItsFetchLands() {
        try (ClusterFixture cluster = new ClusterFixture(dir, 2, TEN_SECOND_LAG)) {
            cluster.createTopic(TP.topic(), List.of(1, 2));
            cluster.append(TP, "a");
            // An hour without writes: the follower's last fetch is an hour old, but it was caught up all along.
            cluster.advance(Duration.ofHours(1).toMillis());
            cluster.run(() -> cluster.state.faults().setLatency(2, 5_000));
            cluster.append(TP, "b");

            // The limit counts from the append that left the follower behind, not from its last fetch.
            cluster.advance(10_000);
            assertThat(cluster.isr(TP)).as("exactly at the limit: still in sync").containsExactly(1, 2);
            cluster.advance(1);
            assertThat(cluster.isr(TP)).as("1 ms past it, its fetch still in flight: out").containsExactly(1);
            assertThat(cluster.events(IsrShrunk.class)).singleElement()
                    .satisfies(e -> {
                        assertThat(e.removed()).isEqualTo(2);
                        assertThat(e.reason()).contains("replica.lag.time.max.ms=10000");
                    });
            assertThat(cluster.call(() -> cluster.state.metadata().partition(TP).highWatermark()))
                    .as("the leader alone in the ISR: its log end offset is the high watermark").isEqualTo(2);

            // 5 s of wall time later the fetch lands with everything: the follower is caught up and back.
            cluster.advanceWall(5_000);
            assertThat(cluster.isr(TP)).containsExactly(1, 2);
        }
    }

    @Test
    void shouldDropAFollowerThatDoesNotFetchInANewLeaderEpochAfterTheLimit() {
        try (ClusterFixture cluster = new ClusterFixture(dir, 3, TEN_SECOND_LAG)) {
            cluster.createTopic(TP.topic(), List.of(1, 2, 3));
            cluster.append(TP, "a");
            cluster.run(() -> {
                cluster.state.faults().setLatency(3, 5_000);
                cluster.state.controller().brokerStopped(1, Controller.Stop.CRASH, cluster.state.random());
            });
            assertThat(cluster.call(() -> cluster.state.metadata().partition(TP).leader())).isEqualTo(2);

            // The new epoch gave follower 3 the full limit to fetch in; its first fetch is in flight meanwhile.
            cluster.advance(10_000);
            assertThat(cluster.isr(TP)).as("exactly at the limit").containsExactlyInAnyOrder(2, 3);
            cluster.advance(1);
            assertThat(cluster.isr(TP)).as("1 ms past it").containsExactly(2);

            cluster.advanceWall(5_000);
            assertThat(cluster.isr(TP)).containsExactlyInAnyOrder(2, 3);
        }
    }

    @Test
    void shouldDropAPausedFollowerTheLimitAfterThePauseAndTakeItBackOnResume() {
        try (ClusterFixture cluster = new ClusterFixture(dir, 2, TEN_SECOND_LAG)) {
            Partition partition = cluster.createTopic(TP.topic(), List.of(1, 2));
            cluster.append(TP, "a");
            cluster.advance(Duration.ofHours(1).toMillis());
            cluster.run(() -> cluster.state.fetcher().pause(partition, 2));

            // Caught up when paused: nothing is written, yet a follower that stopped fetching leaves.
            cluster.advance(10_000);
            assertThat(cluster.isr(TP)).as("exactly at the limit").containsExactly(1, 2);
            cluster.advance(1);
            assertThat(cluster.isr(TP)).as("1 ms past it").containsExactly(1);

            cluster.run(() -> {
                cluster.state.faults().resume(TP, 2);
                cluster.state.fetcher().replicateSoon(partition);
            });
            assertThat(cluster.isr(TP)).containsExactly(1, 2);
        }
    }
}
