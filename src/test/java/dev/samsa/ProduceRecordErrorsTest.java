package dev.samsa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.function.IntPredicate;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidTimestampException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * KIP-467 with the real producer: a batch the broker refuses for some of its records names them, so the producer fails
 * exactly those with the broker's reason and the others with its generic "part of a batch which had one more more
 * invalid records" KafkaException (kafka-clients' Sender.failBatch; it does not re-send them itself). The application
 * can then re-send the others, which is what these tests do, and read them back. Without record errors every record
 * of the batch fails with the partition's error and none can be told apart.
 */
class ProduceRecordErrorsTest {

    private static final int RECORDS = 100;
    /** What kafka-clients' producer fails the valid records of a refused batch with, its typo included. */
    private static final String PART_OF_A_REFUSED_BATCH =
            "Failed to append record because it was part of a batch which had one more more invalid records";

    private static KafkaCluster cluster;

    @BeforeAll
    static void start() {
        cluster = KafkaCluster.builder().seed(467).start();
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    @Test
    void onACompactedTopicOnlyTheRecordsWithoutKeyFailAndTheOthersCanBeSentAgain() throws Exception {
        String topic = "compacted-keyless";
        cluster.createTopic(topic, 1, 1, Map.of("cleanup.policy", "compact"));
        IntPredicate keyless = i -> i % 10 == 3;
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(oneBatchProducerConfig())) {
            List<ProducerRecord<String, String>> records = new ArrayList<>();
            for (int i = 0; i < RECORDS; i++) {
                records.add(new ProducerRecord<>(topic, 0, keyless.test(i) ? null : "key-" + i, "value-" + i));
            }
            List<Future<RecordMetadata>> sent = sendAll(producer, records);
            assertSentInOneBatch(producer);

            List<ProducerRecord<String, String>> again = new ArrayList<>();
            for (int i = 0; i < RECORDS; i++) {
                Throwable failure = failure(sent.get(i));
                if (keyless.test(i)) {
                    assertThat(failure).as("record %d, without key", i).isExactlyInstanceOf(InvalidRecordException.class)
                            .hasMessage("Compacted topic cannot accept message without key in topic partition " + topic + "-0");
                } else {
                    assertThat(failure).as("record %d, with key", i).isExactlyInstanceOf(KafkaException.class)
                            .hasMessage(PART_OF_A_REFUSED_BATCH);
                    again.add(records.get(i));
                }
            }
            assertThat(cluster.partition(topic, 0).highWatermark()).as("nothing of the refused batch appended").isZero();

            assertThat(again).hasSize(90);
            for (Future<RecordMetadata> resent : sendAll(producer, again)) {
                resent.get();
            }
        }
        assertThat(readAll(topic, 90)).isEqualTo(expectedValues(i -> !keyless.test(i)));
    }

    @Test
    void onlyTheRecordsWithTimestampsTooOldFailAndTheOthersCanBeSentAgain() throws Exception {
        String topic = "old-timestamps";
        cluster.createTopic(topic, 1, 1, Map.of("message.timestamp.before.max.ms", "600000"));
        IntPredicate old = i -> i % 10 == 7;
        long now = System.currentTimeMillis();
        long anHourAgo = now - 3_600_000;
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(oneBatchProducerConfig())) {
            List<ProducerRecord<String, String>> records = new ArrayList<>();
            for (int i = 0; i < RECORDS; i++) {
                records.add(new ProducerRecord<>(topic, 0, old.test(i) ? anHourAgo : now, "key-" + i, "value-" + i));
            }
            List<Future<RecordMetadata>> sent = sendAll(producer, records);
            assertSentInOneBatch(producer);

            List<ProducerRecord<String, String>> again = new ArrayList<>();
            for (int i = 0; i < RECORDS; i++) {
                Throwable failure = failure(sent.get(i));
                if (old.test(i)) {
                    // Several record errors: the producer cannot tell their kinds apart and makes each an InvalidRecordException.
                    assertThat(failure).as("record %d, an hour old", i).isExactlyInstanceOf(InvalidRecordException.class)
                            .hasMessageStartingWith("Timestamp " + anHourAgo + " of message with offset " + i
                                    + " is out of range. The timestamp should be within [");
                } else {
                    assertThat(failure).as("record %d, of now", i).isExactlyInstanceOf(KafkaException.class)
                            .hasMessage(PART_OF_A_REFUSED_BATCH);
                    again.add(records.get(i));
                }
            }
            assertThat(cluster.partition(topic, 0).highWatermark()).as("nothing of the refused batch appended").isZero();

            assertThat(again).hasSize(90);
            for (Future<RecordMetadata> resent : sendAll(producer, again)) {
                resent.get();
            }
        }
        assertThat(readAll(topic, 90)).isEqualTo(expectedValues(i -> !old.test(i)));
    }

    @Test
    void aSingleRecordTooOldFailsWithThePartitionsInvalidTimestamp() throws Exception {
        String topic = "one-old-timestamp";
        cluster.createTopic(topic, 1, 1, Map.of("message.timestamp.before.max.ms", "600000"));
        long now = System.currentTimeMillis();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(oneBatchProducerConfig())) {
            List<Future<RecordMetadata>> sent = sendAll(producer, List.of(
                    new ProducerRecord<>(topic, 0, now, "k", "fresh"),
                    new ProducerRecord<>(topic, 0, now - 3_600_000, "k", "stale"),
                    new ProducerRecord<>(topic, 0, now, "k", "fresh too")));

            // One record error: the producer takes the partition's error code for it, INVALID_TIMESTAMP.
            assertThat(failure(sent.get(1))).isExactlyInstanceOf(InvalidTimestampException.class)
                    .hasMessageStartingWith("Timestamp " + (now - 3_600_000) + " of message with offset 1 is out of range.");
            assertThat(failure(sent.get(0))).isExactlyInstanceOf(KafkaException.class).hasMessage(PART_OF_A_REFUSED_BATCH);
            assertThat(failure(sent.get(2))).isExactlyInstanceOf(KafkaException.class).hasMessage(PART_OF_A_REFUSED_BATCH);
        }
        assertThat(cluster.partition(topic, 0).highWatermark()).isZero();
    }

    /** Holds every record until flush, so that all of them travel in one batch, the case KIP-467 is about. */
    private static Map<String, Object> oneBatchProducerConfig() {
        Map<String, Object> config = cluster.producerConfig();
        config.put("linger.ms", "600000");
        config.put("batch.size", Integer.toString(1024 * 1024));
        config.put("delivery.timeout.ms", "1200000");
        return config;
    }

    private static List<Future<RecordMetadata>> sendAll(KafkaProducer<String, String> producer,
                                                       List<ProducerRecord<String, String>> records) {
        List<Future<RecordMetadata>> sent = new ArrayList<>();
        records.forEach(r -> sent.add(producer.send(r)));
        producer.flush();
        return sent;
    }

    private static void assertSentInOneBatch(KafkaProducer<String, String> producer) {
        // Called after the producer's first request: its batches averaged all the records, so there was one.
        Object average = producer.metrics().entrySet().stream()
                .filter(e -> e.getKey().group().equals("producer-metrics") && e.getKey().name().equals("records-per-request-avg"))
                .findFirst().orElseThrow().getValue().metricValue();
        assertThat(average).as("records per batch of the first request").isEqualTo((double) RECORDS);
    }

    private static Throwable failure(Future<RecordMetadata> sent) throws InterruptedException {
        assertThat(sent).isDone();
        try {
            throw new AssertionError("The record was appended at offset " + sent.get().offset());
        } catch (ExecutionException e) {
            return e.getCause();
        }
    }

    private static List<String> expectedValues(IntPredicate kept) {
        List<String> values = new ArrayList<>();
        for (int i = 0; i < RECORDS; i++) {
            if (kept.test(i)) {
                values.add("value-" + i);
            }
        }
        return values;
    }

    private static List<String> readAll(String topic, int count) {
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cluster.consumerConfig(null))) {
            TopicPartition tp = new TopicPartition(topic, 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(1)).until(() -> {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    values.add(r.value());
                }
                return values.size() >= count;
            });
        }
        return values;
    }
}
