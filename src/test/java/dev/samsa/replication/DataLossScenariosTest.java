package dev.samsa.replication;

import static dev.samsa.junit.SamsaAssertions.assertThat;
import static dev.samsa.junit.SamsaConditions.awaitCluster;
import static dev.samsa.junit.SamsaConditions.highWatermarkReached;
import static dev.samsa.junit.SamsaConditions.isrSize;
import static dev.samsa.replication.ScenarioSupport.followers;
import static dev.samsa.replication.ScenarioSupport.producer;
import static dev.samsa.replication.ScenarioSupport.sendAcknowledged;
import static dev.samsa.replication.ScenarioSupport.shrinkIsrToLeader;
import static org.assertj.core.api.Assertions.assertThat;

import dev.samsa.KafkaCluster;
import dev.samsa.event.Truncated;
import dev.samsa.junit.EmbeddedKafkaCluster;
import dev.samsa.junit.EmbeddedKafkaCluster.ClockType;
import dev.samsa.junit.EmbeddedKafkaCluster.Lifecycle;
import dev.samsa.junit.Topic;
import dev.samsa.time.ClusterClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The data-loss cases of Kafka's literature, each reproduced with real clients on three brokers and counted exactly.
 * Topics have one partition replicated on brokers 1, 2 and 3; the seed fixes the placement, and the tests read the
 * leader rather than assume it. Each configuration is a nested class with its own cluster, fresh for every test,
 * since every test crashes or cuts off a broker. Manual clocks start at 2026-01-01T00:00:00Z.
 */
class DataLossScenariosTest {

    private static final int K = 10;

    @Nested
    @EmbeddedKafkaCluster(brokers = 3, seed = 1, topics = @Topic(name = "payments", replicationFactor = 3),
            lifecycle = Lifecycle.PER_METHOD)
    class AcksOne {

        @Test
        void acksOneLosesExactlyTheRecordsTheFollowersNeverFetched(KafkaCluster cluster) {
            try (KafkaProducer<String, String> producer = producer(cluster, "1", Map.of())) {
                List<String> acknowledged = new ArrayList<>(sendAcknowledged(producer, "payments", "before", 0, 100));
                awaitCluster().untilAsserted(highWatermarkReached(cluster, "payments", 0, 100));
                int leader = cluster.partition("payments", 0).leader();
                List<Integer> followers = followers(cluster, "payments");
                followers.forEach(f -> cluster.faults().pauseReplication("payments", 0, f));

                List<String> lost = sendAcknowledged(producer, "payments", "unreplicated", 0, K);
                assertThat(lost).as("acks=1: the leader acknowledges what no follower has").hasSize(K);
                acknowledged.addAll(lost);

                cluster.broker(leader).crash();
                followers.forEach(f -> cluster.faults().resumeReplication("payments", 0, f));
                int newLeader = cluster.partition("payments", 0).leader();
                assertThat(newLeader).isIn(followers);
                assertThat(cluster.partition("payments", 0).logEndOffset(newLeader)).isEqualTo(100);

                cluster.broker(leader).restart();
                awaitCluster().untilAsserted(highWatermarkReached(cluster, "payments", 0, 100));
                Truncated truncation = cluster.events().await(Truncated.class, t -> t.brokerId() == leader, Duration.ofSeconds(10));
                assertThat(truncation.records()).isEqualTo(K);

                assertThat(cluster).topic("payments").values().satisfies(read -> {
                    List<String> missing = new ArrayList<>(acknowledged);
                    missing.removeAll(read);
                    assertThat(missing).as("acknowledged records lost").containsExactlyElementsOf(lost);
                });
            }
        }
    }

    @Nested
    @EmbeddedKafkaCluster(brokers = 3, seed = 2, brokerConfig = "min.insync.replicas=2",
            topics = @Topic(name = "ledger", replicationFactor = 3), lifecycle = Lifecycle.PER_METHOD)
    class AcksAllMinInsyncTwo {

        @Test
        void acksAllWithMinInsyncTwoSurvivesASingleCrashAtEveryPoint(KafkaCluster cluster) {
            int records = 200;
            try (KafkaProducer<String, String> producer = producer(cluster, "all", Map.of())) {
                List<String> acknowledged = new ArrayList<>();
                for (int i = 0; i < records; i++) {
                    // A crash before every record: the leader two times out of three, a follower the third.
                    int leader = cluster.partition("ledger", 0).leader();
                    int victim = i % 3 == 2 ? followers(cluster, "ledger").get(0) : leader;
                    cluster.broker(victim).crash();
                    acknowledged.addAll(sendAcknowledged(producer, "ledger", "r", i, i + 1));
                    cluster.broker(victim).restart();
                    // The restarted replica catches up and is back in the ISR before the next crash.
                    awaitCluster().pollInterval(Duration.ofMillis(1)).untilAsserted(isrSize(cluster, "ledger", 0, 3));
                }
                assertThat(acknowledged).as("with two live replicas every record is acknowledged").hasSize(records);
                assertThat(cluster).topic("ledger").values().as("after %d single-broker crashes", records)
                        .containsExactlyElementsOf(acknowledged);
            }
        }
    }

    // A leader alone in the ISR, then a power loss: once with min.insync.replicas=1, once with 2.

    @Nested
    @EmbeddedKafkaCluster(brokers = 3, seed = 3, clock = ClockType.MANUAL, brokerConfig = "min.insync.replicas=1",
            topics = @Topic(name = "orders", replicationFactor = 3, config = "flush.messages=50"),
            lifecycle = Lifecycle.PER_METHOD)
    class LoneLeaderWithMinInsyncOne {

        @Test
        void aLeaderAloneInTheIsrLosesAcknowledgedRecordsOnPowerLoss(KafkaCluster cluster, ClusterClock clock) {
            LoneLeaderPowerLoss outcome = powerLossOfALeaderAloneInTheIsr(cluster, clock);

            assertThat(cluster).topic("orders").values()
                    .as("what was flushed survives").containsExactlyElementsOf(outcome.safe())
                    .as("acknowledged by a lone leader, gone with its page cache").doesNotContainAnyElementsOf(outcome.lonely());
            assertThat(outcome.lonely()).as("min.insync.replicas=1 acknowledges with the leader alone").hasSize(K);
            assertThat(outcome.safe()).hasSize(50);
        }
    }

    @Nested
    @EmbeddedKafkaCluster(brokers = 3, seed = 3, clock = ClockType.MANUAL, brokerConfig = "min.insync.replicas=2",
            topics = @Topic(name = "orders", replicationFactor = 3, config = "flush.messages=50"),
            lifecycle = Lifecycle.PER_METHOD)
    class LoneLeaderWithMinInsyncTwo {

        @Test
        void aLeaderAloneInTheIsrAcknowledgesNothingAndLosesNothingOnPowerLossWithMinInsyncTwo(KafkaCluster cluster,
                                                                                                ClusterClock clock) {
            LoneLeaderPowerLoss outcome = powerLossOfALeaderAloneInTheIsr(cluster, clock);

            assertThat(cluster).topic("orders").values()
                    .as("what was flushed survives").containsExactlyElementsOf(outcome.safe());
            assertThat(outcome.lonely()).as("min.insync.replicas=2 refuses: NOT_ENOUGH_REPLICAS").isEmpty();
            assertThat(outcome.safe()).hasSize(50);
        }
    }

    /** What the producer was told was written: before the ISR shrank, and while the leader was alone in it. */
    private record LoneLeaderPowerLoss(List<String> safe, List<String> lonely) {
    }

    /**
     * Writes 50 records (flushed: flush.messages=50), leaves the leader alone in the ISR, writes K more, then cuts the
     * leader's power, resumes the followers and restarts the leader; returns once the 50 are committed again.
     */
    private static LoneLeaderPowerLoss powerLossOfALeaderAloneInTheIsr(KafkaCluster cluster, ClusterClock clock) {
        try (KafkaProducer<String, String> producer = producer(cluster, "all",
                Map.of("retries", "0", "enable.idempotence", "false", "delivery.timeout.ms", "11000"))) {
            List<String> safe = sendAcknowledged(producer, "orders", "safe", 0, 50);
            List<Integer> followers = followers(cluster, "orders");
            // The followers stop fetching; 30 s of cluster time later the leader drops them from the ISR.
            int leader = shrinkIsrToLeader(cluster, clock, "orders");

            List<String> lonely = sendAcknowledged(producer, "orders", "lonely", 0, K);
            // The first 50 records were flushed (flush.messages=50); the power loss takes the leader's unflushed tail.
            cluster.broker(leader).powerLoss();
            followers.forEach(f -> cluster.faults().resumeReplication("orders", 0, f));
            cluster.broker(leader).restart();
            awaitCluster().untilAsserted(highWatermarkReached(cluster, "orders", 0, 50));
            return new LoneLeaderPowerLoss(safe, lonely);
        }
    }
}
