package dev.samsa.replication;

import static dev.samsa.junit.SamsaAssertions.assertThat;
import static dev.samsa.junit.SamsaConditions.awaitCluster;
import static dev.samsa.junit.SamsaConditions.highWatermarkReached;
import static dev.samsa.junit.SamsaConditions.isrSize;
import static dev.samsa.replication.ScenarioSupport.producer;
import static dev.samsa.replication.ScenarioSupport.sendAcknowledged;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.samsa.Api;
import dev.samsa.KafkaCluster;
import dev.samsa.KafkaError;
import dev.samsa.event.FaultInjected;
import dev.samsa.event.TimedEvent;
import dev.samsa.junit.EmbeddedKafkaCluster;
import dev.samsa.junit.EmbeddedKafkaCluster.Lifecycle;
import dev.samsa.junit.Topic;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * Injected request errors and latency, isolation, and misuse of the fault API. Each configuration is a nested class;
 * every test gets a fresh cluster, since it leaves faults behind or counts the records of topic "t" from zero.
 */
class FaultInjectionTest {

    @Nested
    @EmbeddedKafkaCluster(brokers = 3, seed = 11, topics = @Topic(name = "t", replicationFactor = 3),
            lifecycle = Lifecycle.PER_METHOD)
    class ThreeReplicas {

        @Test
        void injectedErrorsReachTheClientWhichRetriesPastThem(KafkaCluster cluster) throws Exception {
            try (KafkaProducer<String, String> producer = producer(cluster, "all", Map.of())) {
                sendAcknowledged(producer, "t", "warm", 0, 1);
                cluster.faults().failNext(Api.PRODUCE, KafkaError.NOT_LEADER_OR_FOLLOWER, 3);
                assertThat(producer.send(new ProducerRecord<>("t", 0, "k", "after-faults")).get().offset()).isEqualTo(1);
                assertThat(cluster).timeline().events().extracting(TimedEvent::event).filteredOn(FaultInjected.class::isInstance).hasSize(3)
                        .allSatisfy(e -> assertThat((FaultInjected) e).extracting(FaultInjected::api, FaultInjected::error)
                                .containsExactly("PRODUCE", "NOT_LEADER_OR_FOLLOWER"));
            }
        }
    }

    @Nested
    @EmbeddedKafkaCluster(brokers = 3, seed = 13, brokerConfig = "min.insync.replicas=2",
            topics = @Topic(name = "t", replicationFactor = 3), lifecycle = Lifecycle.PER_METHOD)
    class ThreeReplicasMinInsyncTwo {

        @Test
        void anIsolatedLeaderLosesLeadershipAndRejoinsTheIsrWhenHealed(KafkaCluster cluster) {
            try (KafkaProducer<String, String> producer = producer(cluster, "all", Map.of())) {
                List<String> acknowledged = new ArrayList<>(sendAcknowledged(producer, "t", "a", 0, 10));
                int leader = cluster.partition("t", 0).leader();
                cluster.broker(leader).isolate();
                assertThat(cluster.partition("t", 0).leader()).isNotEqualTo(leader).isPositive();
                assertThat(cluster.partition("t", 0).isr()).doesNotContain(leader);
                acknowledged.addAll(sendAcknowledged(producer, "t", "b", 0, 10));
                assertThat(acknowledged).hasSize(20);

                cluster.broker(leader).heal();
                // Three replicas in sync again: the healed broker among them.
                awaitCluster().untilAsserted(isrSize(cluster, "t", 0, 3));
                assertThat(cluster.partition("t", 0).logEndOffset(leader)).isEqualTo(20);
                awaitCluster().untilAsserted(highWatermarkReached(cluster, "t", 0, 20));
                assertThat(cluster).topic("t").values().containsExactlyElementsOf(acknowledged);
                assertThat(cluster).timeline().hasEvent("FaultApplied").hasEvent("FaultHealed");
            }
        }
    }

    /** One broker, one replica. These two tests used seeds 12 and 14 on their own clusters; neither checks anything seeded. */
    @Nested
    @EmbeddedKafkaCluster(seed = 12, topics = @Topic(name = "t"), lifecycle = Lifecycle.PER_METHOD)
    class OneBroker {

        @Test
        void aProducerThatDoesNotRetrySeesTheInjectedError(KafkaCluster cluster) {
            try (KafkaProducer<String, String> producer = producer(cluster, "1", Map.of("retries", "0"))) {
                sendAcknowledged(producer, "t", "warm", 0, 1);
                cluster.faults().failNext(Api.PRODUCE, KafkaError.NOT_LEADER_OR_FOLLOWER, 1);
                assertThatThrownBy(() -> producer.send(new ProducerRecord<>("t", 0, "k", "v")).get())
                        .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(NotLeaderOrFollowerException.class);
                assertThat(sendAcknowledged(producer, "t", "after", 0, 1)).hasSize(1);
            }
        }

        @Test
        void addedLatencyDelaysResponsesButLosesNothing(KafkaCluster cluster) {
            try (KafkaProducer<String, String> producer = producer(cluster, "1", Map.of())) {
                cluster.faults().latency(1, Duration.ofMillis(200));
                assertThat(sendAcknowledged(producer, "t", "slow", 0, 3)).hasSize(3);
                cluster.faults().latency(1, Duration.ZERO);
                assertThat(cluster).topic("t").containsExactlyValues("slow-0", "slow-1", "slow-2");
            }
        }
    }

    @Nested
    @EmbeddedKafkaCluster(brokers = 2, seed = 15, topics = @Topic(name = "t"), lifecycle = Lifecycle.PER_METHOD)
    class TwoBrokersOneReplica {

        @Test
        void misusedFaultsNameTheProblem(KafkaCluster cluster) {
            int notAReplica = cluster.partition("t", 0).replicas().get(0) == 1 ? 2 : 1;
            assertThatThrownBy(() -> cluster.faults().pauseReplication("t", 0, notAReplica))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no replica");
            assertThatThrownBy(() -> cluster.broker(3)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1..2");
            cluster.broker(2).crash();
            assertThatThrownBy(() -> cluster.broker(2).crash()).isInstanceOf(IllegalStateException.class).hasMessageContaining("not running");
            assertThatThrownBy(() -> cluster.broker(1).restart()).isInstanceOf(IllegalStateException.class).hasMessageContaining("is running");
        }
    }
}
