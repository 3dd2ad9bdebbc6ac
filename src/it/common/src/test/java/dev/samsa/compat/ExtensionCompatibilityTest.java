package dev.samsa.compat;

import static dev.samsa.junit.SamsaAssertions.assertThat;
import static dev.samsa.junit.SamsaConditions.awaitCluster;
import static dev.samsa.junit.SamsaConditions.isrSize;
import static org.assertj.core.api.Assertions.assertThat;

import dev.samsa.KafkaCluster;
import dev.samsa.junit.BootstrapServers;
import dev.samsa.junit.EmbeddedKafkaCluster;
import dev.samsa.junit.Topic;
import dev.samsa.time.ClusterClock;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.LongSerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/** The JUnit extension, its injection and its assertions, which read with the project's own KafkaConsumer. */
@EmbeddedKafkaCluster(brokers = 3, topics = {@Topic(name = "orders", partitions = 2, replicationFactor = 3),
        @Topic(name = "amounts")})
class ExtensionCompatibilityTest {

    @Test
    void injectsTheClusterAndReadsTopicsWithTheProjectsDeserializer(KafkaCluster cluster,
            @BootstrapServers String bootstrap, ClusterClock clock) throws Exception {
        assertThat(bootstrap).isEqualTo(cluster.bootstrapServers());
        assertThat(clock).isSameAs(cluster.clock());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(cluster.producerConfig())) {
            producer.send(new ProducerRecord<>("orders", "id-1", "created")).get();
            producer.send(new ProducerRecord<>("orders", "id-1", "paid")).get();
        }
        java.util.Map<String, Object> config = cluster.producerConfig();
        config.put("key.serializer", StringSerializer.class);
        config.put("value.serializer", LongSerializer.class);
        try (KafkaProducer<String, Long> producer = new KafkaProducer<>(config)) {
            producer.send(new ProducerRecord<>("amounts", "id-1", 1200L)).get();
        }

        assertThat(cluster).topic("orders").hasRecordCount(2).containsExactlyValues("created", "paid");
        assertThat(cluster).topic("amounts", new LongDeserializer()).containsValues(1200L);
        assertThat(cluster).partition("orders", 0).hasIsrSize(3);
        awaitCluster().until(isrSize(cluster, "orders", 1, 3));
        assertThat(cluster).timeline().hasEvent("TopicCreated", "orders");
    }
}
