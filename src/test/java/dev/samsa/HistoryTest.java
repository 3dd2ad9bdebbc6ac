package dev.samsa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.samsa.junit.SamsaAssertions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The history checker against what a consumer reads: what it calls lost is missing, the rest is there. */
class HistoryTest {

    @Test
    void acksAllIdempotentWritesSurviveALeaderCrashWithNothingLostOrDuplicated() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(161)
                .topic("orders", 1, 3, Map.of("min.insync.replicas", "2")).start()) {
            int leader = cluster.partition("orders", 0).leader();
            Map<String, Object> config = cluster.producerConfig();
            config.put("acks", "all");
            config.put("enable.idempotence", "true");
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
                for (int n = 0; n < 60; n++) {
                    if (n == 30) {
                        cluster.broker(leader).crash();
                    }
                    producer.send(new ProducerRecord<>("orders", 0, "k", "r" + n)).get();
                }
            }
            History history = cluster.history();
            assertThat(history.acknowledgedBatches()).isEqualTo(60);
            assertThat(history.lost()).as("%s", history).isEmpty();
            assertThat(history.duplicates()).as("%s", history).isEmpty();
            SamsaAssertions.assertThat(cluster).history().hasNoLostAcknowledgedRecords().hasNoDuplicatedRecords();
        }
    }

    @Test
    void acks1WritesOnlyTheLeaderHadAreReportedLostAndAConsumerConfirmsIt() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(162).topic("orders", 1, 3).start()) {
            int leader = cluster.partition("orders", 0).leader();
            List<Integer> followers = cluster.partition("orders", 0).replicas().stream().filter(r -> r != leader).toList();
            cluster.events().on(When.highWatermarkReached("orders", 0, 20),
                    () -> followers.forEach(f -> cluster.faults().pauseReplication("orders", 0, f)));
            TreeMap<Long, String> acknowledged = new TreeMap<>();
            Map<String, Object> config = cluster.producerConfig();
            config.put("acks", "1");
            config.put("enable.idempotence", "false");
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
                for (int n = 0; n < 40; n++) {
                    acknowledged.put(producer.send(new ProducerRecord<>("orders", 0, "k", "r" + n)).get().offset(), "r" + n);
                }
            }
            cluster.broker(leader).powerLoss();
            await().atMost(Duration.ofSeconds(10)).until(() -> cluster.partition("orders", 0).leader() > 0);

            History history = cluster.history();
            List<String> reportedLost = new ArrayList<>();
            history.lost().forEach(l -> acknowledged.subMap(l.baseOffset(), true, l.lastOffset(), true).values()
                    .forEach(reportedLost::add));
            assertThat(reportedLost).as("%s", history).isNotEmpty();
            assertThat(history.lost()).allSatisfy(l -> assertThat(l.nearbyEvents()).anyMatch(e -> e.contains("POWER_LOSS")));
            List<String> read = readAll(cluster);
            assertThat(read).as("lost according to the history: %s", history).doesNotContainAnyElementsOf(reportedLost);
            List<String> kept = new ArrayList<>(acknowledged.values());
            kept.removeAll(reportedLost);
            assertThat(read).containsExactlyElementsOf(kept);
            assertThatThrownBy(() -> SamsaAssertions.assertThat(cluster).history().hasNoLostAcknowledgedRecords())
                    .hasMessageContaining(reportedLost.size() + " were")
                    .hasMessageContaining("orders-0 offsets " + history.lost().get(0).baseOffset())
                    .hasMessageContaining("how=POWER_LOSS");
        }
    }

    @Test
    void aClusterBuiltWithoutHistoryRecordsNothing() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().history(false).topic("orders", 1, 1).start()) {
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(cluster.producerConfig())) {
                producer.send(new ProducerRecord<>("orders", 0, "k", "v")).get();
            }
            assertThat(cluster.history().acknowledgedBatches()).isZero();
        }
    }

    @Test
    void processedButNotCommittedBeforeTheConsumerDiesIsDeliveredTwice() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().seed(163).topic("orders", 1, 1).start()) {
            produce(cluster, 10);
            List<String> first = pollAll(cluster, "billing", "a", 10);
            // a processed its records and dies before committing: b starts again from the beginning.
            List<String> second = pollAll(cluster, "billing", "b", 10);
            assertThat(second).isEqualTo(first);

            GroupHistory group = cluster.history().group("billing");
            assertThat(group.deliveredTwice()).singleElement().satisfies(d -> {
                assertThat(d.firstOffset()).isZero();
                assertThat(d.lastOffset()).isEqualTo(9);
                assertThat(d.clients()).containsExactly("a", "b");
            });
            assertThat(group.skipped()).isEmpty();
            assertThatThrownBy(() -> SamsaAssertions.assertThat(cluster).history().group("billing").hasNoRecordDeliveredTwice())
                    .hasMessageContaining("orders-0 offsets 0..9 sent to [a, b]");
        }
    }

    @Test
    void anOffsetCommittedBeforeAnyMemberWasSentTheRecordsSkipsThem() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().seed(164).topic("orders", 1, 1).start()) {
            produce(cluster, 10);
            Map<String, Object> config = cluster.consumerConfig("billing");
            config.put("client.id", "a");
            config.put("enable.auto.commit", "false");
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
                consumer.subscribe(List.of("orders"));
                TopicPartition tp = new TopicPartition("orders", 0);
                await().atMost(Duration.ofSeconds(20)).until(() -> {
                    consumer.poll(Duration.ofMillis(20));
                    return !consumer.assignment().isEmpty();
                });
                consumer.commitSync(Map.of(tp, new org.apache.kafka.clients.consumer.OffsetAndMetadata(15)));
            }
            GroupHistory group = cluster.history().group("billing");
            assertThat(group.skipped()).as("%s", group).anySatisfy(s -> assertThat(s.lastOffset()).isEqualTo(14));
            SamsaAssertions.assertThat(cluster).history().group("billing").hasNoRecordDeliveredTwice();
        }
    }

    private static void produce(KafkaCluster cluster, int count) throws Exception {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(cluster.producerConfig())) {
            for (int n = 0; n < count; n++) {
                producer.send(new ProducerRecord<>("orders", 0, "k", "r" + n)).get();
            }
        }
    }

    private static List<String> pollAll(KafkaCluster cluster, String group, String clientId, int count) {
        Map<String, Object> config = cluster.consumerConfig(group);
        config.put("client.id", clientId);
        config.put("enable.auto.commit", "false");
        config.put("auto.offset.reset", "earliest");
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
            consumer.subscribe(List.of("orders"));
            await().atMost(Duration.ofSeconds(20)).until(() -> {
                consumer.poll(Duration.ofMillis(20)).forEach(r -> values.add(r.value()));
                return values.size() >= count;
            });
        }
        return values;
    }

    private static List<String> readAll(KafkaCluster cluster) {
        Map<String, Object> config = cluster.consumerConfig("reader");
        config.put("enable.auto.commit", "false");
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> reader = new KafkaConsumer<>(config)) {
            TopicPartition tp = new TopicPartition("orders", 0);
            reader.assign(List.of(tp));
            reader.seekToBeginning(List.of(tp));
            long end = reader.endOffsets(List.of(tp)).get(tp);
            await().atMost(Duration.ofSeconds(20)).until(() -> {
                reader.poll(Duration.ofMillis(50)).forEach(r -> values.add(r.value()));
                return reader.position(tp) >= end;
            });
        }
        return values;
    }
}
