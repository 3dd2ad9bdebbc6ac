package dev.samsa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Fetching from inside a batch: the broker returns the whole batch and the client skips what it did not ask for. */
class MidBatchFetchTest {

    private static KafkaCluster cluster;

    @BeforeAll
    static void start() {
        cluster = KafkaCluster.builder().start();
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    /** Sends {@code count} records that the producer puts into one batch (long linger, one flush). */
    private static void produceOneBatch(String topic, int count, int valueSize) {
        Map<String, Object> config = cluster.producerConfig();
        config.put("linger.ms", "60000");
        config.put("batch.size", Integer.toString(count * (valueSize + 100)));
        config.put("max.request.size", Integer.toString(count * (valueSize + 100) + 10_000));
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(topic, 0, "k" + i, i + ":" + "v".repeat(valueSize)));
            }
            producer.flush();
        }
    }

    private static List<ConsumerRecord<String, String>> readFrom(String topic, long offset, int expected, Map<String, Object> extra) {
        Map<String, Object> config = cluster.consumerConfig(null);
        config.putAll(extra);
        List<ConsumerRecord<String, String>> received = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
            TopicPartition tp = new TopicPartition(topic, 0);
            consumer.assign(List.of(tp));
            consumer.seek(tp, offset);
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(1)).until(() -> {
                consumer.poll(Duration.ofMillis(100)).forEach(received::add);
                return received.size() >= expected;
            });
        }
        return received;
    }

    @Test
    void aFetchFromTheMiddleOfABatchDeliversTheRestOfIt() {
        cluster.createTopic("mid-batch", 1, 1);
        produceOneBatch("mid-batch", 10, 10);
        List<ConsumerRecord<String, String>> received = readFrom("mid-batch", 5, 5, Map.of());
        assertThat(received).extracting(ConsumerRecord::offset).containsExactly(5L, 6L, 7L, 8L, 9L);
        assertThat(received).extracting(ConsumerRecord::key).containsExactly("k5", "k6", "k7", "k8", "k9");
    }

    @Test
    void aBatchLargerThanTheFetchLimitsIsStillDelivered() {
        cluster.createTopic("big-batch", 1, 1);
        produceOneBatch("big-batch", 20, 5_000);
        // 100 KB in one batch, against limits of 1 KB: the first batch is returned whole so the consumer moves on.
        List<ConsumerRecord<String, String>> received = readFrom("big-batch", 3, 17,
                Map.of("max.partition.fetch.bytes", "1024", "fetch.max.bytes", "1024"));
        assertThat(received).extracting(ConsumerRecord::offset).first().isEqualTo(3L);
        assertThat(received).hasSize(17);
    }
}
