package dev.samsa.junit;

import static org.awaitility.Awaitility.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.samsa.KafkaCluster;
import dev.samsa.Security.Mechanism;
import dev.samsa.Security.Protocol;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/** The annotation's security attributes: a client configured only from the cluster's client config connects. */
@EmbeddedKafkaCluster(listeners = {Protocol.SASL_SSL, Protocol.PLAINTEXT}, users = "alice:alice-secret",
        saslMechanisms = Mechanism.SCRAM_SHA_256, topics = @Topic(name = "secured", partitions = 1, replicationFactor = 1))
class SecuredClusterAnnotationTest {

    @Test
    void aUserOfTheAnnotationProducesAndConsumesOverSaslSsl(KafkaCluster cluster, @BootstrapServers String bootstrap) throws Exception {
        assertThat(bootstrap).isEqualTo(cluster.bootstrapServers(Protocol.SASL_SSL));
        assertThat(cluster.clientConfig("alice")).containsEntry("sasl.mechanism", "SCRAM-SHA-256");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(cluster.producerConfig("alice"))) {
            producer.send(new ProducerRecord<>("secured", "k", "v")).get(15, TimeUnit.SECONDS);
        }
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cluster.consumerConfig("alice", "g"))) {
            consumer.subscribe(List.of("secured"));
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(1)).until(() -> {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    values.add(r.value());
                }
                return !values.isEmpty();
            });
        }
        assertThat(values).containsExactly("v");
    }
}
