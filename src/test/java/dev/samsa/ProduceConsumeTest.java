package dev.samsa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ProduceConsumeTest {

    private static final int RECORDS = 100_000;
    private static KafkaCluster cluster;

    @BeforeAll
    static void start() {
        cluster = KafkaCluster.builder().seed(7).start();
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    /** Deterministic record i: some null values, some without key, headers on every third. */
    private static ProducerRecord<byte[], byte[]> record(String topic, int i) {
        byte[] key = i % 7 == 0 ? null : ("key-" + i).getBytes(StandardCharsets.UTF_8);
        byte[] value = i % 11 == 0 ? null : ("value-" + i + "-" + "x".repeat(i % 50)).getBytes(StandardCharsets.UTF_8);
        RecordHeaders headers = new RecordHeaders();
        if (i % 3 == 0) {
            headers.add(new RecordHeader("h" + (i % 5), ("hv" + i).getBytes(StandardCharsets.UTF_8)));
        }
        long timestamp = System.currentTimeMillis() - 60_000 + (i % 1000);
        return new ProducerRecord<>(topic, 0, timestamp, key, value, headers);
    }

    @ParameterizedTest(name = "compression={0}")
    @ValueSource(strings = {"none", "gzip", "snappy", "lz4", "zstd"})
    void recordsComeBackIdenticalAndInOrder(String compression) throws Exception {
        String topic = "records-" + compression;
        cluster.createTopic(topic, 1, 1);
        Map<String, Object> producerConfig = cluster.producerConfig();
        producerConfig.put("key.serializer", ByteArraySerializer.class.getName());
        producerConfig.put("value.serializer", ByteArraySerializer.class.getName());
        producerConfig.put("acks", "all");
        producerConfig.put("enable.idempotence", "true");
        producerConfig.put("compression.type", compression);
        producerConfig.put("linger.ms", "5");
        List<ProducerRecord<byte[], byte[]>> sent = new ArrayList<>(RECORDS);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerConfig)) {
            Future<RecordMetadata> last = null;
            for (int i = 0; i < RECORDS; i++) {
                ProducerRecord<byte[], byte[]> r = record(topic, i);
                sent.add(r);
                last = producer.send(r);
            }
            producer.flush();
            assertThat(last.get().offset()).isEqualTo(RECORDS - 1);
        }

        Map<String, Object> consumerConfig = cluster.consumerConfig(null);
        consumerConfig.put("key.deserializer", ByteArrayDeserializer.class.getName());
        consumerConfig.put("value.deserializer", ByteArrayDeserializer.class.getName());
        List<ConsumerRecord<byte[], byte[]>> received = new ArrayList<>(RECORDS);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerConfig)) {
            TopicPartition tp = new TopicPartition(topic, 0);
            consumer.assign(List.of(tp));
            consumer.seek(tp, 0);
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(1)).until(() -> {
                consumer.poll(Duration.ofMillis(200)).forEach(received::add);
                return received.size() >= RECORDS;
            });
        }

        assertThat(received).hasSize(RECORDS);
        for (int i = 0; i < RECORDS; i++) {
            ProducerRecord<byte[], byte[]> s = sent.get(i);
            ConsumerRecord<byte[], byte[]> r = received.get(i);
            assertThat(r.offset()).as("offset of record %d", i).isEqualTo(i);
            assertThat(r.key()).as("key of record %d", i).isEqualTo(s.key());
            assertThat(r.value()).as("value of record %d", i).isEqualTo(s.value());
            assertThat(r.timestamp()).as("timestamp of record %d", i).isEqualTo(s.timestamp());
            assertThat(r.timestampType()).isEqualTo(TimestampType.CREATE_TIME);
            assertThat(Arrays.asList(r.headers().toArray())).as("headers of record %d", i)
                    .isEqualTo(Arrays.asList(s.headers().toArray()));
        }
    }
}
