package dev.samsa.replication;

import static dev.samsa.replication.ScenarioSupport.producer;
import static dev.samsa.replication.ScenarioSupport.sendAcknowledged;
import static org.assertj.core.api.Assertions.assertThat;

import dev.samsa.KafkaCluster;
import java.io.IOException;
import java.net.Socket;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;

/** Cut from its clients only, a leader stays leader and in sync: clients just cannot reach it until it heals. */
class ClientIsolationTest {

    @Test
    void aLeaderIsolatedFromClientsKeepsLeadershipAndServesAgainWhenHealed() throws IOException {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(31).topic("t", 1, 3).start();
             KafkaProducer<String, String> producer = producer(cluster, "all", Map.of("retries", "0",
                     "enable.idempotence", "false", "request.timeout.ms", "1000", "delivery.timeout.ms", "1500"))) {
            assertThat(sendAcknowledged(producer, "t", "a", 0, 5)).hasSize(5);
            int leader = cluster.partition("t", 0).leader();
            List<Integer> isr = cluster.partition("t", 0).isr();

            cluster.broker(leader).isolateFromClients();
            try (Socket socket = new Socket("127.0.0.1", cluster.broker(leader).port())) {
                socket.setSoTimeout(5_000);
                assertThat(socket.getInputStream().read()).as("the broker closes every new connection").isEqualTo(-1);
            }
            assertThat(sendAcknowledged(producer, "t", "cut", 0, 1)).as("the only leader is out of reach").isEmpty();
            assertThat(cluster.partition("t", 0).leader()).isEqualTo(leader);
            assertThat(cluster.partition("t", 0).isr()).containsExactlyInAnyOrderElementsOf(isr);

            cluster.broker(leader).heal();
            assertThat(sendAcknowledged(producer, "t", "b", 0, 5)).hasSize(5);
        }
    }
}
