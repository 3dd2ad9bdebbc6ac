package dev.samsa.replication;

import static dev.samsa.replication.ScenarioSupport.awaitHighWatermark;
import static dev.samsa.replication.ScenarioSupport.followers;
import static dev.samsa.replication.ScenarioSupport.producer;
import static dev.samsa.replication.ScenarioSupport.readAll;
import static dev.samsa.replication.ScenarioSupport.sendAcknowledged;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.samsa.KafkaCluster;
import dev.samsa.time.ClusterClock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;

/**
 * A follower that nobody paused but that cannot keep up leaves the ISR by replica.lag.time.max.ms, as in Kafka, and
 * rejoins once its fetches catch up: the leader judges its followers by their fetches, whatever slows them.
 */
class SlowFollowerTest {

    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

    @Test
    void aFollowerSlowedByLatencyLeavesTheIsrPastTheLagLimitAndRejoinsOnceCaughtUp() {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(2).seed(33).clock(ClusterClock.manual(START))
                .topic("slow", 1, 2).start();
             KafkaProducer<String, String> producer = producer(cluster, "1", Map.of())) {
            int leader = cluster.partition("slow", 0).leader();
            int follower = followers(cluster, "slow").get(0);
            assertThat(sendAcknowledged(producer, "slow", "v", 0, 1)).hasSize(1);
            awaitHighWatermark(cluster, "slow", 1);

            // Every exchange with the follower's broker now takes 5 s of wall time, its fetches included.
            cluster.faults().latency(follower, Duration.ofSeconds(5));
            assertThat(sendAcknowledged(producer, "slow", "v", 1, 2)).hasSize(1);
            // While that fetch is in flight, 30 s of cluster time (Kafka's replica.lag.time.max.ms) and 1 ms pass.
            cluster.clock().advance(Duration.ofMillis(30_001));
            assertThat(cluster.partition("slow", 0).isr()).as("behind for longer than the limit").containsExactly(leader);
            assertThat(cluster.partition("slow", 0).highWatermark()).as("the leader alone decides it").isEqualTo(2);

            await().atMost(Duration.ofSeconds(30))
                    .until(() -> cluster.partition("slow", 0).isr().contains(follower));
            assertThat(cluster.partition("slow", 0).logEndOffset(follower)).isEqualTo(2);
            cluster.faults().latency(follower, Duration.ZERO);
            assertThat(readAll(cluster, "slow")).containsExactly("v-0", "v-1");
        }
    }
}
