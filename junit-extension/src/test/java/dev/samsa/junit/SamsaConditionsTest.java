package dev.samsa.junit;

import static dev.samsa.junit.SamsaConditions.awaitCluster;
import static dev.samsa.junit.SamsaConditions.eventRecorded;
import static dev.samsa.junit.SamsaConditions.highWatermarkReached;
import static dev.samsa.junit.SamsaConditions.isrSize;
import static dev.samsa.junit.SamsaConditions.leaderElected;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.samsa.KafkaCluster;
import dev.samsa.junit.EmbeddedKafkaCluster.Lifecycle;
import java.time.Duration;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;

/** Awaitility conditions on the cluster's state, each test on a fresh three-broker cluster. */
@EmbeddedKafkaCluster(brokers = 3, lifecycle = Lifecycle.PER_METHOD, topics = @Topic(name = "orders", replicationFactor = 3))
class SamsaConditionsTest {

    @Test
    void highWatermarkReachedWaitsForAcknowledgedRecords(KafkaCluster cluster) {
        try (var producer = new KafkaProducer<String, String>(cluster.producerConfig())) {
            for (int i = 0; i < 3; i++) {
                producer.send(new ProducerRecord<>("orders", "order-" + i));
            }
            awaitCluster().until(highWatermarkReached(cluster, "orders", 0, 3));
        }
        assertThat(cluster.partition("orders", 0).highWatermark()).isEqualTo(3);
    }

    @Test
    void isrSizeFollowsABrokerThatCrashesAndComesBack(KafkaCluster cluster) {
        awaitCluster().until(isrSize(cluster, "orders", 0, 3));
        int follower = cluster.partition("orders", 0).replicas().stream()
                .filter(b -> b != cluster.partition("orders", 0).leader()).findFirst().orElseThrow();

        cluster.broker(follower).crash();
        awaitCluster().until(isrSize(cluster, "orders", 0, 2));
        cluster.broker(follower).restart();

        awaitCluster().until(isrSize(cluster, "orders", 0, 3));
        awaitCluster().until(eventRecorded(cluster, "IsrExpanded", "added=" + follower));
    }

    @Test
    void leaderElectedWaitsForANewLeaderAfterTheLeaderCrashes(KafkaCluster cluster) {
        int leader = cluster.partition("orders", 0).leader();

        cluster.broker(leader).crash();

        awaitCluster().until(leaderElected(cluster, "orders", 0));
        assertThat(cluster.partition("orders", 0).leader()).isNotEqualTo(leader);
    }

    @Test
    void asAnAssertionATimeoutNamesTheConditionAndWhatItSawLast(KafkaCluster cluster) {
        assertThatThrownBy(() -> awaitCluster().atMost(Duration.ofMillis(200))
                .untilAsserted(highWatermarkReached(cluster, "orders", 0, 10)))
                .isInstanceOf(ConditionTimeoutException.class)
                .hasMessageContaining("Expected high watermark of orders-0 >= 10 (last seen: 0)");
    }

    @Test
    void groupConditionsSeeAGroupThatDoesNotExistAsDead(KafkaCluster cluster) {
        awaitCluster().until(SamsaConditions.groupInState(cluster, "nobody", dev.samsa.GroupState.DEAD));
    }
}
