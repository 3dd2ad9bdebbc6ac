package dev.samsa;

// The README's Quick start, as the whole file it shows (ReadmeTest holds the two to each other); the compatibility
// projects of src/it run it with their own kafka-clients and JUnit.
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.samsa.KafkaCluster;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class QuickStartTest {

    @Test
    void producesAndConsumes() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder()
                .topic("orders", 1, 1)                      // name, partitions, replication factor
                .start()) {
            try (var producer = new KafkaProducer<String, String>(cluster.producerConfig())) {
                producer.send(new ProducerRecord<>("orders", "id-1", "created")).get();
            }
            try (var consumer = new KafkaConsumer<String, String>(cluster.consumerConfig(null))) {
                var tp = new TopicPartition("orders", 0);
                consumer.assign(List.of(tp));
                consumer.seekToBeginning(List.of(tp));
                var records = consumer.poll(Duration.ofSeconds(10));   // returns once the record is in
                assertEquals("created", records.iterator().next().value());
            }
        }
    }
}
