package dev.samsa.replication;

import static dev.samsa.replication.ScenarioSupport.awaitHighWatermark;
import static dev.samsa.replication.ScenarioSupport.producer;
import static dev.samsa.replication.ScenarioSupport.readAll;
import static dev.samsa.replication.ScenarioSupport.sendAcknowledged;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.samsa.KafkaCluster;
import dev.samsa.event.ClusterEvent;
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
import org.junit.jupiter.api.Test;

class ElectionAndTruncationTest {

    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");
    private static final int K = 10;

    /** Pauses every follower and advances past replica.lag.time.max.ms, leaving the leader alone in the ISR. */
    private static int shrinkIsrToLeader(KafkaCluster cluster, ClusterClock clock, String topic) {
        int leader = cluster.partition(topic, 0).leader();
        for (int r : cluster.partition(topic, 0).replicas()) {
            if (r != leader) {
                cluster.faults().pauseReplication(topic, 0, r);
            }
        }
        // 30 s is Kafka's replica.lag.time.max.ms; one more millisecond and the followers are out.
        clock.advance(Duration.ofMillis(30_001));
        assertThat(cluster.partition(topic, 0).isr()).containsExactly(leader);
        return leader;
    }

    private static void resumeAll(KafkaCluster cluster, String topic) {
        for (int r : cluster.partition(topic, 0).replicas()) {
            cluster.faults().resumeReplication(topic, 0, r);
        }
    }

    @Test
    void uncleanElectionPutsAnOutOfSyncReplicaInChargeAndLosesAcknowledgedRecords() {
        ClusterClock clock = ClusterClock.manual(START);
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(5).clock(clock)
                .brokerConfig("unclean.leader.election.enable", "true").topic("events", 1, 3).start();
             KafkaProducer<String, String> producer = producer(cluster, "all", Map.of())) {
            List<String> before = sendAcknowledged(producer, "events", "before", 0, 20);
            int leader = shrinkIsrToLeader(cluster, clock, "events");
            List<String> lonely = sendAcknowledged(producer, "events", "lonely", 0, K);
            assertThat(lonely).hasSize(K);

            cluster.broker(leader).crash();
            resumeAll(cluster, "events");
            assertThat(cluster.events().events()).extracting(ClusterEvent::type).contains("UncleanLeaderElected");
            int newLeader = cluster.partition("events", 0).leader();
            assertThat(newLeader).isNotEqualTo(leader).isPositive();

            cluster.broker(leader).restart();
            ClusterEvent truncation = cluster.events().await(e -> e.type().equals("Truncated")
                    && e.details().contains("broker=" + leader), Duration.ofSeconds(10));
            assertThat(truncation.details()).contains("records=" + K);
            List<String> read = readAll(cluster, "events");
            assertThat(read).containsExactlyElementsOf(before).doesNotContainAnyElementsOf(lonely);
        }
    }

    @Test
    void withoutUncleanElectionThePartitionStaysOfflineUntilTheLastInSyncReplicaReturns() throws Exception {
        ClusterClock clock = ClusterClock.manual(START);
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(5).clock(clock).topic("events", 1, 3).start();
             KafkaProducer<String, String> producer = producer(cluster, "all", Map.of());
             Admin admin = Admin.create(cluster.adminConfig())) {
            List<String> before = sendAcknowledged(producer, "events", "before", 0, 20);
            int leader = shrinkIsrToLeader(cluster, clock, "events");
            List<String> lonely = sendAcknowledged(producer, "events", "lonely", 0, K);

            cluster.broker(leader).crash();
            resumeAll(cluster, "events");
            assertThat(cluster.partition("events", 0).leader()).as("offline").isEqualTo(-1);
            TopicDescription offline = admin.describeTopics(List.of("events")).allTopicNames().get().get("events");
            assertThat(offline.partitions().get(0).leader()).as("LEADER_NOT_AVAILABLE: no leader in Metadata").isNull();

            cluster.broker(leader).restart();
            assertThat(cluster.partition("events", 0).leader()).isEqualTo(leader);
            awaitHighWatermark(cluster, "events", 20 + K);
            List<String> all = new ArrayList<>(before);
            all.addAll(lonely);
            assertThat(readAll(cluster, "events")).containsExactlyElementsOf(all);
        }
    }

    @Test
    void aWholeClusterPowerLossLosesTheUnflushedTailAndNothingWithFlushMessagesOne() {
        for (String flushMessages : new String[] {"1000", "1"}) {
            try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(6)
                    .topic("journal", 1, 1, Map.of("flush.messages", flushMessages)).start();
                 KafkaProducer<String, String> producer = producer(cluster, "all", Map.of())) {
                List<String> acknowledged = sendAcknowledged(producer, "journal", "j", 0, 2_500);
                assertThat(acknowledged).hasSize(2_500);
                cluster.powerLossAndRestart();
                awaitHighWatermark(cluster, "journal", 1);
                List<String> read = readAll(cluster, "journal");
                if (flushMessages.equals("1")) {
                    assertThat(read).as("flushed after every message: nothing lost").containsExactlyElementsOf(acknowledged);
                } else {
                    // One record per batch, flushed every 1000 messages: the last 500 were only in the page cache.
                    assertThat(read).as("flush.messages=1000").containsExactlyElementsOf(acknowledged.subList(0, 2_000));
                }
            }
        }
    }

    @Test
    void aConsumerReadingAcrossATruncatingLeaderChangeDetectsTheTruncation() {
        ClusterClock clock = ClusterClock.manual(START);
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(7).clock(clock)
                .brokerConfig("unclean.leader.election.enable", "true").topic("feed", 1, 3).start();
             KafkaProducer<String, String> producer = producer(cluster, "all", Map.of())) {
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
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(1)).until(() -> {
                    consumer.poll(Duration.ofMillis(100)).forEach(r -> seen.add(r.value()));
                    return seen.size() >= 20 + K;
                });

                cluster.broker(leader).crash();
                resumeAll(cluster, "feed");
                // The new leader never had the last K records; the consumer's position is past its log end.
                LogTruncationException detected = await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(1))
                        .until(() -> {
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

    @Test
    void aPausedFollowerLeavesTheIsrExactlyWhenTheClockPassesTheLagLimit() {
        ClusterClock clock = ClusterClock.manual(START);
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(8).clock(clock)
                .brokerConfig("replica.lag.time.max.ms", "10000").topic("metrics", 1, 3).start()) {
            int leader = cluster.partition("metrics", 0).leader();
            int follower = cluster.partition("metrics", 0).replicas().stream().filter(r -> r != leader).findFirst().orElseThrow();
            long pausedAt = clock.milliseconds();
            cluster.faults().pauseReplication("metrics", 0, follower);

            clock.advance(Duration.ofMillis(10_000));
            assertThat(cluster.partition("metrics", 0).isr()).as("exactly at the limit: still in sync").contains(follower);
            clock.advance(Duration.ofMillis(1));
            assertThat(cluster.partition("metrics", 0).isr()).as("1 ms past it: out").doesNotContain(follower);

            ClusterEvent shrink = cluster.events().events().stream().filter(e -> e.type().equals("IsrShrunk")).findFirst().orElseThrow();
            assertThat(shrink.timeMs()).isEqualTo(pausedAt + 10_001);
            assertThat(shrink.details()).contains("removed=" + follower);
        }
    }

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
