package dev.samsa.replication;

import static dev.samsa.replication.ScenarioSupport.awaitHighWatermark;
import static dev.samsa.replication.ScenarioSupport.producer;
import static dev.samsa.replication.ScenarioSupport.readAll;
import static dev.samsa.replication.ScenarioSupport.sendAcknowledged;
import static org.assertj.core.api.Assertions.assertThat;

import dev.samsa.KafkaCluster;
import dev.samsa.event.Truncated;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;

/**
 * A leader cut off from the controller and its followers, but not from its clients, goes on acting as leader of its
 * old epoch: acks=1 writes to it are acknowledged and then lost when it learns of the new leader; acks=all writes
 * are never acknowledged.
 */
class StaleLeaderTest {

    private static final int K = 10;

    @Test
    void acksOneWritesToAStaleLeaderAreAcknowledgedAndLostWhenItRejoins() {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(21).topic("orders", 1, 3).start();
             KafkaProducer<String, String> producer = producer(cluster, "1", Map.of("metadata.max.age.ms", "300000"))) {
            List<String> before = sendAcknowledged(producer, "orders", "before", 0, 20);
            awaitHighWatermark(cluster, "orders", 20);
            int stale = cluster.partition("orders", 0).leader();

            cluster.broker(stale).isolateFromBrokers();
            int newLeader = cluster.partition("orders", 0).leader();
            assertThat(newLeader).isNotEqualTo(stale).isPositive();

            // The producer's metadata still names the old leader, which still believes it leads: it acknowledges.
            List<String> zombie = sendAcknowledged(producer, "orders", "zombie", 0, K);
            assertThat(zombie).as("acks=1 writes acknowledged by the stale leader").hasSize(K);
            assertThat(cluster.partition("orders", 0).logEndOffset(stale)).isEqualTo(20 + K);
            assertThat(cluster.partition("orders", 0).logEndOffset(newLeader)).isEqualTo(20);

            cluster.broker(stale).heal();
            Truncated truncation = cluster.events().await(Truncated.class, t -> t.brokerId() == stale, Duration.ofSeconds(10));
            assertThat(truncation.records()).isEqualTo(K);
            assertThat(cluster.history().lost()).as("%s", cluster.history()).hasSize(K).allSatisfy(l -> assertThat(l.lostBy())
                    .as("the fault that lost them").endsWith("FaultApplied  isolate broker=" + stale + " from brokers"));

            List<String> after;
            try (KafkaProducer<String, String> fresh = producer(cluster, "1", Map.of())) {
                after = sendAcknowledged(fresh, "orders", "after", 0, 5);
            }
            assertThat(after).hasSize(5);
            awaitHighWatermark(cluster, "orders", 25);
            List<String> expected = new ArrayList<>(before);
            expected.addAll(after);
            assertThat(readAll(cluster, "orders")).containsExactlyElementsOf(expected).doesNotContainAnyElementsOf(zombie);
        }
    }

    @Test
    void acksAllWritesToAStaleLeaderAreNeverAcknowledged() {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(22).topic("orders", 1, 3).start();
             KafkaProducer<String, String> producer = producer(cluster, "all", Map.of("metadata.max.age.ms", "300000",
                     "retries", "0", "enable.idempotence", "false", "request.timeout.ms", "1000", "delivery.timeout.ms", "1500"))) {
            List<String> before = sendAcknowledged(producer, "orders", "before", 0, 20);
            int stale = cluster.partition("orders", 0).leader();
            cluster.broker(stale).isolateFromBrokers();

            // No follower can reach the stale leader, so its high watermark never passes this record: the request times
            // out. (The producer then refreshes its metadata from whichever broker it asks, the stale one included, so
            // where later sends go is up to the client; every one acknowledged must survive.)
            assertThat(sendAcknowledged(producer, "orders", "zombie", 0, 1)).isEmpty();
            List<String> acknowledged = new ArrayList<>(before);
            acknowledged.addAll(sendAcknowledged(producer, "orders", "later", 0, 3));

            cluster.broker(stale).heal();
            cluster.events().await(Truncated.class, t -> t.brokerId() == stale,
                    Duration.ofSeconds(10));
            awaitHighWatermark(cluster, "orders", acknowledged.size());
            assertThat(readAll(cluster, "orders")).containsExactlyElementsOf(acknowledged).doesNotContain("zombie-0");
        }
    }
}
