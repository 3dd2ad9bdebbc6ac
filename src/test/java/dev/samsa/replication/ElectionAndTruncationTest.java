package dev.samsa.replication;

import static dev.samsa.junit.SamsaAssertions.assertThat;
import static dev.samsa.junit.SamsaConditions.awaitCluster;
import static dev.samsa.junit.SamsaConditions.highWatermarkReached;
import static dev.samsa.replication.ScenarioSupport.followers;
import static dev.samsa.replication.ScenarioSupport.producer;
import static dev.samsa.replication.ScenarioSupport.sendAcknowledged;
import static dev.samsa.replication.ScenarioSupport.shrinkIsrToLeader;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.samsa.KafkaCluster;
import dev.samsa.event.IsrShrunk;
import dev.samsa.event.TimedEvent;
import dev.samsa.event.Truncated;
import dev.samsa.junit.EmbeddedKafkaCluster;
import dev.samsa.junit.EmbeddedKafkaCluster.ClockType;
import dev.samsa.junit.EmbeddedKafkaCluster.Lifecycle;
import dev.samsa.junit.Topic;
import dev.samsa.time.ClusterClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.LogTruncationException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * Leader election (clean and unclean), truncation by leader epoch, power loss and the ISR's lag limit, on three
 * brokers. Each configuration is a nested class with its own cluster, fresh for every test, since every test breaks
 * it. Manual clocks start at 2026-01-01T00:00:00Z.
 */
class ElectionAndTruncationTest {

    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");
    private static final int K = 10;

    private static void resumeAll(KafkaCluster cluster, String topic) {
        for (int r : cluster.partition(topic, 0).replicas()) {
            cluster.faults().resumeReplication(topic, 0, r);
        }
    }

    @Nested
    @EmbeddedKafkaCluster(brokers = 3, seed = 5, clock = ClockType.MANUAL, brokerConfig = "unclean.leader.election.enable=true",
            topics = @Topic(name = "events", replicationFactor = 3), lifecycle = Lifecycle.PER_METHOD)
    class UncleanElection {

        @Test
        void uncleanElectionPutsAnOutOfSyncReplicaInChargeAndLosesAcknowledgedRecords(KafkaCluster cluster,
                                                                                       ClusterClock clock) {
            try (KafkaProducer<String, String> producer = producer(cluster, "all", Map.of())) {
                List<String> before = sendAcknowledged(producer, "events", "before", 0, 20);
                int leader = shrinkIsrToLeader(cluster, clock, "events");
                List<String> lonely = sendAcknowledged(producer, "events", "lonely", 0, K);
                assertThat(lonely).hasSize(K);

                cluster.broker(leader).crash();
                resumeAll(cluster, "events");
                assertThat(cluster).timeline().hasEvent("UncleanLeaderElected");
                int newLeader = cluster.partition("events", 0).leader();
                assertThat(newLeader).isNotEqualTo(leader).isPositive();

                cluster.broker(leader).restart();
                Truncated truncation = cluster.events().await(Truncated.class, t -> t.brokerId() == leader, Duration.ofSeconds(10));
                assertThat(truncation.records()).isEqualTo(K);
                assertThat(cluster).topic("events").values()
                        .containsExactlyElementsOf(before).doesNotContainAnyElementsOf(lonely);
            }
        }
    }

    @Nested
    @EmbeddedKafkaCluster(brokers = 3, seed = 5, clock = ClockType.MANUAL,
            topics = @Topic(name = "events", replicationFactor = 3), lifecycle = Lifecycle.PER_METHOD)
    class CleanElectionOnly {

        @Test
        void withoutUncleanElectionThePartitionStaysOfflineUntilTheLastInSyncReplicaReturns(KafkaCluster cluster,
                                                                                             ClusterClock clock)
                throws Exception {
            try (KafkaProducer<String, String> producer = producer(cluster, "all", Map.of());
                 Admin admin = Admin.create(cluster.adminConfig())) {
                List<String> before = sendAcknowledged(producer, "events", "before", 0, 20);
                int leader = shrinkIsrToLeader(cluster, clock, "events");
                List<String> lonely = sendAcknowledged(producer, "events", "lonely", 0, K);

                cluster.broker(leader).crash();
                resumeAll(cluster, "events");
                assertThat(cluster).as("offline").partition("events", 0).isOffline();
                TopicDescription offline = admin.describeTopics(List.of("events")).allTopicNames().get().get("events");
                assertThat(offline.partitions().get(0).leader()).as("LEADER_NOT_AVAILABLE: no leader in Metadata").isNull();

                cluster.broker(leader).restart();
                assertThat(cluster).partition("events", 0).hasLeader(leader);
                awaitCluster().untilAsserted(highWatermarkReached(cluster, "events", 0, 20 + K));
                List<String> all = new ArrayList<>(before);
                all.addAll(lonely);
                assertThat(cluster).topic("events").values().containsExactlyElementsOf(all);
            }
        }
    }

    // A power loss of every broker at once: once with flush.messages=1000, once with 1.

    @Nested
    @EmbeddedKafkaCluster(brokers = 3, seed = 6, topics = @Topic(name = "journal", config = "flush.messages=1000"),
            lifecycle = Lifecycle.PER_METHOD)
    class FlushEveryThousandMessages {

        @Test
        void aWholeClusterPowerLossLosesTheUnflushedTail(KafkaCluster cluster) {
            List<String> acknowledged = powerLossAndRestartAfter2500Records(cluster);
            // One record per batch, flushed every 1000 messages: the last 500 were only in the page cache.
            assertThat(cluster).topic("journal").values().as("flush.messages=1000")
                    .containsExactlyElementsOf(acknowledged.subList(0, 2_000));
        }
    }

    @Nested
    @EmbeddedKafkaCluster(brokers = 3, seed = 6, topics = @Topic(name = "journal", config = "flush.messages=1"),
            lifecycle = Lifecycle.PER_METHOD)
    class FlushEveryMessage {

        @Test
        void aWholeClusterPowerLossLosesNothingWithFlushMessagesOne(KafkaCluster cluster) {
            List<String> acknowledged = powerLossAndRestartAfter2500Records(cluster);
            assertThat(cluster).topic("journal").values().as("flushed after every message: nothing lost")
                    .containsExactlyElementsOf(acknowledged);
        }
    }

    /** Writes 2,500 records one per batch, all acknowledged, then cuts every broker's power and restarts them. */
    private static List<String> powerLossAndRestartAfter2500Records(KafkaCluster cluster) {
        try (KafkaProducer<String, String> producer = producer(cluster, "all", Map.of())) {
            List<String> acknowledged = sendAcknowledged(producer, "journal", "j", 0, 2_500);
            assertThat(acknowledged).hasSize(2_500);
            cluster.powerLossAndRestart();
            awaitCluster().untilAsserted(highWatermarkReached(cluster, "journal", 0, 1));
            return acknowledged;
        }
    }

    @Nested
    @EmbeddedKafkaCluster(brokers = 3, seed = 7, clock = ClockType.MANUAL, brokerConfig = "unclean.leader.election.enable=true",
            topics = @Topic(name = "feed", replicationFactor = 3), lifecycle = Lifecycle.PER_METHOD)
    class ConsumerAcrossAnUncleanElection {

        @Test
        void aConsumerReadingAcrossATruncatingLeaderChangeDetectsTheTruncation(KafkaCluster cluster, ClusterClock clock) {
            try (KafkaProducer<String, String> producer = producer(cluster, "all", Map.of())) {
                sendAcknowledged(producer, "feed", "kept", 0, 20);
                int leader = shrinkIsrToLeader(cluster, clock, "feed");
                sendAcknowledged(producer, "feed", "doomed", 0, K);

                Map<String, Object> config = cluster.consumerConfig(null);
                config.put("auto.offset.reset", "none");
                config.put("metadata.max.age.ms", "200");
                TopicPartition tp = new TopicPartition("feed", 0);
                try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
                    consumer.assign(List.of(tp));
                    consumer.seek(tp, 0);
                    List<String> seen = new ArrayList<>();
                    awaitCluster().until(() -> {
                        consumer.poll(Duration.ofMillis(100)).forEach(r -> seen.add(r.value()));
                        return seen.size() >= 20 + K;
                    });

                    cluster.broker(leader).crash();
                    resumeAll(cluster, "feed");
                    // The new leader never had the last K records; the consumer's position is past its log end.
                    LogTruncationException detected = awaitCluster().until(() -> {
                        try {
                            consumer.poll(Duration.ofMillis(100));
                            return null;
                        } catch (LogTruncationException e) {
                            return e;
                        }
                    }, e -> e != null);
                    assertThat(detected.divergentOffsets()).containsKey(tp);
                    assertThat(detected.divergentOffsets().get(tp).offset()).isEqualTo(20);
                }
            }
        }
    }

    @Nested
    @EmbeddedKafkaCluster(brokers = 3, seed = 8, clock = ClockType.MANUAL, brokerConfig = "replica.lag.time.max.ms=10000",
            topics = @Topic(name = "metrics", replicationFactor = 3), lifecycle = Lifecycle.PER_METHOD)
    class TenSecondLagLimit {

        @Test
        void aPausedFollowerLeavesTheIsrExactlyWhenTheClockPassesTheLagLimit(KafkaCluster cluster, ClusterClock clock) {
            int follower = followers(cluster, "metrics").get(0);
            long pausedAt = clock.milliseconds();
            cluster.faults().pauseReplication("metrics", 0, follower);

            // replica.lag.time.max.ms is 10 s here: first exactly that long, then one millisecond more.
            clock.advance(Duration.ofMillis(10_000));
            assertThat(cluster.partition("metrics", 0).isr()).as("exactly at the limit: still in sync").contains(follower);
            clock.advance(Duration.ofMillis(1));
            assertThat(cluster.partition("metrics", 0).isr()).as("1 ms past it: out").doesNotContain(follower);

            TimedEvent shrink = cluster.events().matching(e -> e.event() instanceof IsrShrunk).get(0);
            assertThat(shrink.timeMs()).isEqualTo(pausedAt + 10_001);
            assertThat(shrink.event()).isInstanceOfSatisfying(IsrShrunk.class, s -> assertThat(s.removed()).isEqualTo(follower));
        }
    }

    /**
     * Not an {@code @EmbeddedKafkaCluster} test: it compares the timelines of two clusters started with the same seed,
     * and the extension gives a test exactly one cluster.
     */
    @Test
    void theSameSeedGivesTheSameTimeline() {
        assertThat(runScenario(99)).isEqualTo(runScenario(99));
    }

    private static String runScenario(long seed) {
        ClusterClock clock = ClusterClock.manual(START);
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(seed).clock(clock)
                .brokerConfig("min.insync.replicas", "2").topic("replay", 3, 3).start();
             KafkaProducer<String, String> producer = producer(cluster, "all", Map.of())) {
            sendAcknowledged(producer, "replay", "a", 0, 5);
            int leader = cluster.partition("replay", 0).leader();
            cluster.broker(leader).crash();
            clock.advance(Duration.ofSeconds(1));
            sendAcknowledged(producer, "replay", "b", 0, 5);
            cluster.broker(leader).restart();
            await().atMost(Duration.ofSeconds(30)).until(() -> cluster.partition("replay", 0).isr().size() == 3);
            clock.advance(Duration.ofSeconds(1));
            return cluster.events().toString();
        }
    }
}
