package dev.samsa.junit;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * Code written for Spring's {@code @EmbeddedKafka} finds the brokers in {@code spring.embedded.kafka.brokers}; this test
 * knows nothing else about Samsa.
 */
@EmbeddedKafkaCluster(topics = @Topic(name = "greetings"))
class SpringStyleTest {

    @Test
    void codeThatOnlyReadsTheSpringPropertyReachesTheCluster() throws Exception {
        String brokers = System.getProperty("spring.embedded.kafka.brokers");
        assertThat(brokers).matches("127\\.0\\.0\\.1:\\d+");
        assertThat(System.getProperty("samsa.bootstrap.servers")).isEqualTo(brokers);

        Map<String, Object> producerConfig = Map.of("bootstrap.servers", brokers,
                "key.serializer", StringSerializer.class, "value.serializer", StringSerializer.class);
        try (var producer = new KafkaProducer<String, String>(producerConfig)) {
            producer.send(new ProducerRecord<>("greetings", "hello")).get();
        }
        Map<String, Object> consumerConfig = Map.of("bootstrap.servers", brokers,
                "key.deserializer", StringDeserializer.class, "value.deserializer", StringDeserializer.class);
        try (var consumer = new KafkaConsumer<String, String>(consumerConfig)) {
            TopicPartition tp = new TopicPartition("greetings", 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            List<String> values = new ArrayList<>();
            while (values.isEmpty()) {
                consumer.poll(Duration.ofMillis(100)).forEach(r -> values.add(r.value()));
            }
            assertThat(values).containsExactly("hello");
        }
    }
}
