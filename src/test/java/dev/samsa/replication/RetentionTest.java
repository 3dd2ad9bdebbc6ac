package dev.samsa.replication;

import static dev.samsa.replication.ScenarioSupport.producer;
import static dev.samsa.replication.ScenarioSupport.sendAcknowledged;
import static org.assertj.core.api.Assertions.assertThat;

import dev.samsa.KafkaCluster;
import dev.samsa.time.ClusterClock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** Retention on the cluster clock: old segments go when the clock passes retention.ms, checked every 5 minutes. */
class RetentionTest {

    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

    @Test
    void aSegmentOlderThanRetentionMsIsDeletedWhenTheClockPassesIt() throws Exception {
        ClusterClock clock = ClusterClock.manual(START);
        Map<String, String> topicConfig = Map.of("message.timestamp.type", "LogAppendTime", "retention.ms", "3600000",
                "segment.ms", "600000");
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(61).clock(clock).topic("logs", 1, 3, topicConfig).start();
             KafkaProducer<String, String> producer = producer(cluster, "all", Map.of());
             Admin admin = Admin.create(cluster.adminConfig())) {
            assertThat(sendAcknowledged(producer, "logs", "old", 0, 10)).hasSize(10);
            // 11 minutes later the first segment is older than segment.ms: the next append starts a new one.
            clock.advance(Duration.ofMinutes(11));
            assertThat(sendAcknowledged(producer, "logs", "new", 0, 10)).hasSize(10);
            TopicPartition tp = new TopicPartition("logs", 0);

            // 59 minutes after the first records: not yet older than retention.ms.
            clock.advance(Duration.ofMinutes(48));
            assertThat(admin.listOffsets(Map.of(tp, OffsetSpec.earliest())).all().get().get(tp).offset()).isZero();

            // Past the hour, the next check (every log.retention.check.interval.ms = 5 min) drops the old segment.
            clock.advance(Duration.ofMinutes(6));
            assertThat(admin.listOffsets(Map.of(tp, OffsetSpec.earliest())).all().get().get(tp).offset()).isEqualTo(10);
            for (int broker : cluster.partition("logs", 0).replicas()) {
                assertThat(cluster.partition("logs", 0).logStartOffset(broker)).as("broker %d", broker).isEqualTo(10);
            }
            assertThat(cluster.events().events()).filteredOn(e -> e.type().equals("RetentionDeleted")).isNotEmpty();

            // The new segment follows an hour after its own records, and the log is then empty at offset 20.
            clock.advance(Duration.ofMinutes(15));
            assertThat(admin.listOffsets(Map.of(tp, OffsetSpec.earliest())).all().get().get(tp).offset()).isEqualTo(20);
        }
    }

    @Test
    void retentionBytesKeepsTheNewestSegmentsWithinTheLimit() throws Exception {
        ClusterClock clock = ClusterClock.manual(START);
        Map<String, String> topicConfig = Map.of("segment.ms", "60000", "retention.bytes", "1");
        try (KafkaCluster cluster = KafkaCluster.builder().seed(62).clock(clock).topic("capped", 1, 1, topicConfig).start();
             KafkaProducer<String, String> producer = producer(cluster, "1", Map.of())) {
            for (int round = 0; round < 3; round++) {
                assertThat(sendAcknowledged(producer, "capped", "r" + round, 0, 5)).hasSize(5);
                clock.advance(Duration.ofMinutes(2)); // the next append rolls a new segment
            }
            clock.advance(Duration.ofMinutes(5));
            // Each sealed segment alone exceeds 1 byte: every segment but the last one written goes.
            assertThat(cluster.partition("capped", 0).logStartOffset(1)).isEqualTo(10);
        }
    }
}
