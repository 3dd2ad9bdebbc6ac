package dev.samsa.replication;

import static dev.samsa.replication.ScenarioSupport.awaitHighWatermark;
import static dev.samsa.replication.ScenarioSupport.producer;
import static dev.samsa.replication.ScenarioSupport.readAll;
import static dev.samsa.replication.ScenarioSupport.sendAcknowledged;
import static org.assertj.core.api.Assertions.assertThat;

import dev.samsa.KafkaCluster;
import dev.samsa.event.ClusterEvent;
import dev.samsa.time.ClusterClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;

/**
 * The data-loss cases of Kafka's literature, each reproduced with real clients on three brokers and counted exactly.
 * Topics have one partition whose replicas are brokers 1, 2, 3 with broker 1 the first leader (the seed fixes the
 * placement; the tests read the leader rather than assume it).
 */
class DataLossScenariosTest {

    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");
    private static final int K = 10;

    private static int otherThan(List<Integer> replicas, int... excluded) {
        for (int r : replicas) {
            boolean skip = false;
            for (int e : excluded) {
                skip |= r == e;
            }
            if (!skip) {
                return r;
            }
        }
        throw new IllegalStateException("no replica left in " + replicas);
    }

    @Test
    void acksOneLosesExactlyTheRecordsTheFollowersNeverFetched() {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(1).topic("payments", 1, 3).start();
             KafkaProducer<String, String> producer = producer(cluster, "1", Map.of())) {
            List<String> acknowledged = new ArrayList<>(sendAcknowledged(producer, "payments", "before", 0, 100));
            awaitHighWatermark(cluster, "payments", 100);
            int leader = cluster.partition("payments", 0).leader();
            List<Integer> followers = new ArrayList<>(cluster.partition("payments", 0).replicas());
            followers.remove(Integer.valueOf(leader));
            followers.forEach(f -> cluster.faults().pauseReplication("payments", 0, f));

            List<String> lost = sendAcknowledged(producer, "payments", "unreplicated", 0, K);
            assertThat(lost).as("acks=1: the leader acknowledges what no follower has").hasSize(K);
            acknowledged.addAll(lost);

            cluster.broker(leader).crash();
            followers.forEach(f -> cluster.faults().resumeReplication("payments", 0, f));
            assertThat(cluster.partition("payments", 0).leader()).isIn(followers);
            assertThat(cluster.partition("payments", 0).logEndOffset(cluster.partition("payments", 0).leader())).isEqualTo(100);

            cluster.broker(leader).restart();
            awaitHighWatermark(cluster, "payments", 100);
            ClusterEvent truncation = cluster.events().await(e -> e.type().equals("Truncated")
                    && e.details().contains("broker=" + leader), Duration.ofSeconds(10));
            assertThat(truncation.details()).contains("records=" + K);

            List<String> read = readAll(cluster, "payments");
            List<String> missing = new ArrayList<>(acknowledged);
            missing.removeAll(read);
            assertThat(missing).as("acknowledged records lost").containsExactlyElementsOf(lost);
        }
    }

    @Test
    void acksAllWithMinInsyncTwoSurvivesASingleCrashAtEveryPoint() {
        int records = 200;
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(2)
                .brokerConfig("min.insync.replicas", "2").topic("ledger", 1, 3).start();
             KafkaProducer<String, String> producer = producer(cluster, "all", Map.of())) {
            List<String> acknowledged = new ArrayList<>();
            for (int i = 0; i < records; i++) {
                // A crash before every record: the leader two times out of three, a follower the third.
                List<Integer> replicas = cluster.partition("ledger", 0).replicas();
                int leader = cluster.partition("ledger", 0).leader();
                int victim = i % 3 == 2 ? otherThan(replicas, leader) : leader;
                cluster.broker(victim).crash();
                acknowledged.addAll(sendAcknowledged(producer, "ledger", "r", i, i + 1));
                cluster.broker(victim).restart();
                // The restarted replica catches up and is back in the ISR before the next crash.
                awaitIsrSize(cluster, "ledger", 3);
            }
            assertThat(acknowledged).as("with two live replicas every record is acknowledged").hasSize(records);
            assertThat(readAll(cluster, "ledger")).as("after %d single-broker crashes", records)
                    .containsExactlyElementsOf(acknowledged);
        }
    }

    private static void awaitIsrSize(KafkaCluster cluster, String topic, int size) {
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(1))
                .until(() -> cluster.partition(topic, 0).isr().size() == size);
    }

    @Test
    void aLeaderAloneInTheIsrLosesAcknowledgedRecordsOnPowerLossUnlessMinInsyncIsTwo() {
        for (int minIsr : new int[] {1, 2}) {
            ClusterClock clock = ClusterClock.manual(START);
            try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(3).clock(clock)
                    .brokerConfig("min.insync.replicas", Integer.toString(minIsr))
                    .topic("orders", 1, 3, Map.of("flush.messages", "50")).start();
                 KafkaProducer<String, String> producer = producer(cluster, "all",
                         Map.of("retries", "0", "enable.idempotence", "false", "delivery.timeout.ms", "11000"))) {
                List<String> safe = sendAcknowledged(producer, "orders", "safe", 0, 50);
                int leader = cluster.partition("orders", 0).leader();
                List<Integer> followers = new ArrayList<>(cluster.partition("orders", 0).replicas());
                followers.remove(Integer.valueOf(leader));
                followers.forEach(f -> cluster.faults().pauseReplication("orders", 0, f));
                // The followers stop fetching; 30 s of cluster time later the leader drops them from the ISR.
                clock.advance(Duration.ofMillis(30_001));
                assertThat(cluster.partition("orders", 0).isr()).containsExactly(leader);

                List<String> lonely = sendAcknowledged(producer, "orders", "lonely", 0, K);
                // The first 50 records were flushed (flush.messages=50); the power loss takes the leader's unflushed tail.
                cluster.broker(leader).powerLoss();
                followers.forEach(f -> cluster.faults().resumeReplication("orders", 0, f));
                cluster.broker(leader).restart();
                awaitHighWatermark(cluster, "orders", 50);
                List<String> read = readAll(cluster, "orders");
                assertThat(read).as("what was flushed survives").containsExactlyElementsOf(safe);

                if (minIsr == 1) {
                    assertThat(lonely).as("min.insync.replicas=1 acknowledges with the leader alone").hasSize(K);
                    assertThat(read).as("acknowledged by a lone leader, gone with its page cache").doesNotContainAnyElementsOf(lonely);
                } else {
                    assertThat(lonely).as("min.insync.replicas=2 refuses: NOT_ENOUGH_REPLICAS").isEmpty();
                }
                assertThat(safe).hasSize(50);
            }
        }
    }
}
