package dev.samsa.replication;

import static dev.samsa.replication.ScenarioSupport.awaitHighWatermark;
import static dev.samsa.replication.ScenarioSupport.producer;
import static dev.samsa.replication.ScenarioSupport.readAll;
import static dev.samsa.replication.ScenarioSupport.sendAcknowledged;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.samsa.Api;
import dev.samsa.KafkaCluster;
import dev.samsa.KafkaError;
import dev.samsa.event.ClusterEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.junit.jupiter.api.Test;

class FaultInjectionTest {

    @Test
    void injectedErrorsReachTheClientWhichRetriesPastThem() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(11).topic("t", 1, 3).start();
             KafkaProducer<String, String> producer = producer(cluster, "all", Map.of())) {
            sendAcknowledged(producer, "t", "warm", 0, 1);
            cluster.faults().failNext(Api.PRODUCE, KafkaError.NOT_LEADER_OR_FOLLOWER, 3);
            assertThat(producer.send(new ProducerRecord<>("t", 0, "k", "after-faults")).get().offset()).isEqualTo(1);
            assertThat(cluster.events().events()).filteredOn(e -> e.type().equals("FaultInjected")).hasSize(3)
                    .allSatisfy(e -> assertThat(e.details()).contains("PRODUCE").contains("NOT_LEADER_OR_FOLLOWER"));
        }
    }

    @Test
    void aProducerThatDoesNotRetrySeesTheInjectedError() {
        try (KafkaCluster cluster = KafkaCluster.builder().seed(12).topic("t", 1, 1).start();
             KafkaProducer<String, String> producer = producer(cluster, "1", Map.of("retries", "0"))) {
            sendAcknowledged(producer, "t", "warm", 0, 1);
            cluster.faults().failNext(Api.PRODUCE, KafkaError.NOT_LEADER_OR_FOLLOWER, 1);
            assertThatThrownBy(() -> producer.send(new ProducerRecord<>("t", 0, "k", "v")).get())
                    .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(NotLeaderOrFollowerException.class);
            assertThat(sendAcknowledged(producer, "t", "after", 0, 1)).hasSize(1);
        }
    }

    @Test
    void anIsolatedLeaderLosesLeadershipAndRejoinsTheIsrWhenHealed() {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(13)
                .brokerConfig("min.insync.replicas", "2").topic("t", 1, 3).start();
             KafkaProducer<String, String> producer = producer(cluster, "all", Map.of())) {
            List<String> acknowledged = new ArrayList<>(sendAcknowledged(producer, "t", "a", 0, 10));
            int leader = cluster.partition("t", 0).leader();
            cluster.broker(leader).isolate();
            assertThat(cluster.partition("t", 0).leader()).isNotEqualTo(leader).isPositive();
            assertThat(cluster.partition("t", 0).isr()).doesNotContain(leader);
            acknowledged.addAll(sendAcknowledged(producer, "t", "b", 0, 10));
            assertThat(acknowledged).hasSize(20);

            cluster.broker(leader).heal();
            await().atMost(Duration.ofSeconds(30)).until(() -> cluster.partition("t", 0).isr().contains(leader));
            assertThat(cluster.partition("t", 0).logEndOffset(leader)).isEqualTo(20);
            awaitHighWatermark(cluster, "t", 20);
            assertThat(readAll(cluster, "t")).containsExactlyElementsOf(acknowledged);
            assertThat(cluster.events().events()).extracting(ClusterEvent::type).contains("FaultApplied", "FaultHealed");
        }
    }

    @Test
    void addedLatencyDelaysResponsesButLosesNothing() {
        try (KafkaCluster cluster = KafkaCluster.builder().seed(14).topic("t", 1, 1).start();
             KafkaProducer<String, String> producer = producer(cluster, "1", Map.of())) {
            cluster.faults().latency(1, Duration.ofMillis(200));
            assertThat(sendAcknowledged(producer, "t", "slow", 0, 3)).hasSize(3);
            cluster.faults().latency(1, Duration.ZERO);
            assertThat(readAll(cluster, "t")).containsExactly("slow-0", "slow-1", "slow-2");
        }
    }

    @Test
    void misusedFaultsNameTheProblem() {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(2).seed(15).topic("t", 1, 1).start()) {
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
