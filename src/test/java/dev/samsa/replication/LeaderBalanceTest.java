package dev.samsa.replication;

import static dev.samsa.replication.ScenarioSupport.awaitHighWatermark;
import static dev.samsa.replication.ScenarioSupport.producer;
import static dev.samsa.replication.ScenarioSupport.sendAcknowledged;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import dev.samsa.KafkaCluster;
import dev.samsa.event.LeaderChanged;
import dev.samsa.time.ClusterClock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ElectionNotNeededException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.junit.jupiter.api.Test;

class LeaderBalanceTest {

    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");
    private static final TopicPartition TP = new TopicPartition("orders", 0);

    /** Crashes the preferred leader, restarts it and waits until it is back in the ISR, following the new leader. */
    private static int bounceThePreferredLeader(KafkaCluster cluster) {
        int preferred = cluster.partition("orders", 0).replicas().get(0);
        assertThat(cluster.partition("orders", 0).leader()).isEqualTo(preferred);
        cluster.broker(preferred).crash();
        assertThat(cluster.partition("orders", 0).leader()).isNotEqualTo(preferred).isPositive();
        cluster.broker(preferred).restart();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                assertThat(cluster.partition("orders", 0).isr()).as("the restarted preferred replica catches up").contains(preferred));
        assertThat(cluster.partition("orders", 0).leader()).as("a restart alone moves no leader").isNotEqualTo(preferred);
        return preferred;
    }

    private static boolean rebalanced(LeaderChanged e) {
        return e.reason().equals("preferred leader rebalance");
    }

    @Test
    void preferredElectionMovesLeadershipBackToTheFirstReplicaAndASecondOneIsNotNeeded() throws Exception {
        ClusterClock clock = ClusterClock.manual(START);
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(11).clock(clock).topic("orders", 1, 3).start();
             KafkaProducer<String, String> producer = producer(cluster, "all", Map.of());
             Admin admin = Admin.create(cluster.adminConfig())) {
            sendAcknowledged(producer, "orders", "o", 0, 10);
            int preferred = bounceThePreferredLeader(cluster);

            Map<TopicPartition, Optional<Throwable>> first = admin.electLeaders(ElectionType.PREFERRED, Set.of(TP)).partitions().get();
            assertThat(first).containsEntry(TP, Optional.empty());
            assertThat(cluster.partition("orders", 0).leader()).isEqualTo(preferred);

            Map<TopicPartition, Optional<Throwable>> second = admin.electLeaders(ElectionType.PREFERRED, Set.of(TP)).partitions().get();
            assertThat(second.get(TP)).get().isInstanceOf(ElectionNotNeededException.class);

            TopicPartition unknown = new TopicPartition("orders", 7);
            Map<TopicPartition, Optional<Throwable>> third = admin.electLeaders(ElectionType.PREFERRED, Set.of(unknown)).partitions().get();
            assertThat(third.get(unknown)).get().isInstanceOf(UnknownTopicOrPartitionException.class);

            sendAcknowledged(producer, "orders", "o", 10, 20);
            awaitHighWatermark(cluster, "orders", 20);
        }
    }

    @Test
    void theImbalanceCheckMovesLeadershipBackWhenTheClockPassesItsInterval() {
        ClusterClock clock = ClusterClock.manual(START);
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(12).clock(clock)
                .brokerConfig("auto.leader.rebalance.enable", "true").topic("orders", 1, 3).start()) {
            int preferred = bounceThePreferredLeader(cluster);

            // The first check is due 300 s (leader.imbalance.check.interval.seconds) after start; nothing before it.
            clock.advance(Duration.ofSeconds(299));
            assertThat(cluster.partition("orders", 0).leader()).isNotEqualTo(preferred);
            // One more second: the preferred replica leads none of its one partition, 100% > 10%, so it takes it back.
            clock.advance(Duration.ofSeconds(1));
            assertThat(cluster.partition("orders", 0).leader()).isEqualTo(preferred);
            assertThat(cluster.events().events(LeaderChanged.class)).filteredOn(LeaderBalanceTest::rebalanced)
                    .extracting(LeaderChanged::topic, LeaderChanged::partition, LeaderChanged::leader).containsExactly(tuple("orders", 0, preferred));
        }
    }

    @Test
    void withAutomaticRebalanceDisabledTheCheckMovesNothing() {
        ClusterClock clock = ClusterClock.manual(START);
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(12).clock(clock)
                .brokerConfig("auto.leader.rebalance.enable", "false").topic("orders", 1, 3).start()) {
            int preferred = bounceThePreferredLeader(cluster);
            int leader = cluster.partition("orders", 0).leader();

            // Two check intervals pass; with the rebalance off the leader stays where the crash put it.
            clock.advance(Duration.ofSeconds(601));
            assertThat(cluster.partition("orders", 0).leader()).isEqualTo(leader).isNotEqualTo(preferred);
            assertThat(cluster.events().events(LeaderChanged.class)).noneMatch(LeaderBalanceTest::rebalanced);
        }
    }

    @Test
    void anImbalanceAtOrBelowThePercentageIsLeftAlone() {
        ClusterClock clock = ClusterClock.manual(START);
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(12).clock(clock)
                .brokerConfig("leader.imbalance.per.broker.percentage", "100").topic("orders", 1, 3).start()) {
            int preferred = bounceThePreferredLeader(cluster);

            // 100% imbalance does not exceed 100%.
            clock.advance(Duration.ofSeconds(301));
            assertThat(cluster.partition("orders", 0).leader()).isNotEqualTo(preferred);
        }
    }

    @Test
    void uncleanElectLeadersPutsALiveOutOfSyncReplicaInChargeOfAnOfflinePartition() throws Exception {
        ClusterClock clock = ClusterClock.manual(START);
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(13).clock(clock).topic("orders", 1, 3).start();
             KafkaProducer<String, String> producer = producer(cluster, "all", Map.of());
             Admin admin = Admin.create(cluster.adminConfig())) {
            sendAcknowledged(producer, "orders", "o", 0, 10);
            assertThat(admin.electLeaders(ElectionType.UNCLEAN, Set.of(TP)).partitions().get().get(TP))
                    .as("a partition with a leader needs no unclean election").get().isInstanceOf(ElectionNotNeededException.class);

            int leader = cluster.partition("orders", 0).leader();
            for (int r : cluster.partition("orders", 0).replicas()) {
                if (r != leader) {
                    cluster.faults().pauseReplication("orders", 0, r);
                }
            }
            // Past replica.lag.time.max.ms (30 s): the followers leave the ISR, the leader is alone in it.
            clock.advance(Duration.ofMillis(30_001));
            assertThat(cluster.partition("orders", 0).isr()).containsExactly(leader);
            cluster.broker(leader).crash();
            assertThat(cluster.partition("orders", 0).leader()).as("offline without unclean.leader.election.enable").isEqualTo(-1);

            Map<TopicPartition, Optional<Throwable>> result = admin.electLeaders(ElectionType.UNCLEAN, Set.of(TP)).partitions().get();
            assertThat(result).containsEntry(TP, Optional.empty());
            int elected = cluster.partition("orders", 0).leader();
            assertThat(elected).isPositive().isNotEqualTo(leader);
            assertThat(cluster.partition("orders", 0).isr()).containsExactly(elected);
            assertThat(cluster.events().events(LeaderChanged.class))
                    .anyMatch(e -> e.unclean() && e.reason().equals("unclean leader election"));
        }
    }
}
