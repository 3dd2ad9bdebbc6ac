package dev.samsa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.samsa.time.ClusterClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

/** LogAppendTime topics are stamped by the broker, and the broker's time is the cluster clock. */
class LogAppendTimeTest {

    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

    @Test
    void recordsAreStampedWithTheClusterTimeOfTheirAppend() throws Exception {
        ClusterClock clock = ClusterClock.manual(START);
        try (KafkaCluster cluster = KafkaCluster.builder().clock(clock)
                .topic("audit", 1, 1, Map.of("message.timestamp.type", "LogAppendTime")).start();
             KafkaProducer<String, String> producer = new KafkaProducer<>(cluster.producerConfig())) {
            RecordMetadata first = producer.send(new ProducerRecord<>("audit", 0, 42L, "k", "first")).get();
            // An hour of cluster time passes between the two appends; the client's own timestamps are ignored.
            clock.advance(Duration.ofHours(1));
            RecordMetadata second = producer.send(new ProducerRecord<>("audit", 0, 42L, "k", "second")).get();

            assertThat(first.timestamp()).isEqualTo(START.toEpochMilli());
            assertThat(second.timestamp()).isEqualTo(START.plus(Duration.ofHours(1)).toEpochMilli());

            List<ConsumerRecord<String, String>> received = new ArrayList<>();
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cluster.consumerConfig(null))) {
                TopicPartition tp = new TopicPartition("audit", 0);
                consumer.assign(List.of(tp));
                consumer.seek(tp, 0);
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(1)).until(() -> {
                    consumer.poll(Duration.ofMillis(100)).forEach(received::add);
                    return received.size() >= 2;
                });
            }
            assertThat(received).extracting(ConsumerRecord::timestampType).containsOnly(TimestampType.LOG_APPEND_TIME);
            assertThat(received).extracting(ConsumerRecord::timestamp)
                    .containsExactly(first.timestamp(), second.timestamp());
        }
    }

    @Test
    void aManualClockInThePastAcceptsRecordsStampedWithWallTime() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().clock(ClusterClock.manual(START)).topic("events", 1, 1).start();
             KafkaProducer<String, String> producer = new KafkaProducer<>(cluster.producerConfig())) {
            // The producer stamps the wall clock's now, months after the cluster's 2026-01-01.
            RecordMetadata sent = producer.send(new ProducerRecord<>("events", "k", "v")).get();
            assertThat(sent.offset()).isZero();
            assertThat(sent.timestamp()).isGreaterThan(START.toEpochMilli());
        }
    }
}
