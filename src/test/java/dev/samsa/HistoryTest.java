package dev.samsa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.samsa.junit.SamsaAssertions;
import dev.samsa.cluster.ProduceHistory.AckedBatch;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.InitProducerIdRequest;
import org.apache.kafka.common.requests.InitProducerIdResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.junit.jupiter.api.Test;

/**
 * The history checker against what clients see: what it calls lost a consumer does not read, the rest it does; what
 * it calls delivered twice or skipped is what a consumer of the group got twice or never.
 */
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
            assertThat(history.lost()).as("the fault that lost them").allSatisfy(l -> assertThat(l.lostBy())
                    .endsWith("BrokerStopped  broker=" + leader + " how=POWER_LOSS"));
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
                // Each was the group's only member, in the generation its own join started (a's leave made one between).
                assertThat(d.receivers()).extracting(r -> r.generation()).containsExactly(1, 3);
                assertThat(d.receivers().get(0).memberId()).startsWith("a-").isNotEqualTo(d.receivers().get(1).memberId());
            });
            assertThat(group.skipped()).isEmpty();
            GroupHistory.DeliveredTwice twice = group.deliveredTwice().get(0);
            assertThatThrownBy(() -> SamsaAssertions.assertThat(cluster).history().group("billing").hasNoRecordDeliveredTwice())
                    .hasMessageContaining("orders-0 offsets 0..9 sent to [" + twice.receivers().get(0).memberId()
                            + " (generation 1, client a), " + twice.receivers().get(1).memberId() + " (generation 3, client b)]");
            java.nio.file.Path html = cluster.events().writeHtml(java.nio.file.Path.of("target", "history-delivered-twice.html"));
            assertThat(java.nio.file.Files.readString(html)).as("the HTML timeline's findings")
                    .contains("<h3 id=\"findings-delivered-twice\">Records delivered to a group twice (10)</h3>")
                    .contains("<td>billing</td><td>orders</td><td>0</td><td>0..9</td>")
                    .contains(">10 delivered twice</text>");
        }
    }

    /** With the consumer protocol (KIP-848) a receiver's generation is its member epoch from ConsumerGroupHeartbeat. */
    @Test
    void withTheConsumerProtocolTheReceiversOfARedeliveryAreNamedWithTheirMemberEpochs() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().seed(167).topic("orders", 1, 1).start()) {
            produce(cluster, 10);
            Map<String, Object> protocol = Map.of("group.protocol", "consumer");
            List<String> first = pollAll(cluster, "billing", "a", 10, protocol);
            List<String> second = pollAll(cluster, "billing", "b", 10, protocol);
            assertThat(second).isEqualTo(first);

            GroupHistory group = cluster.history().group("billing");
            assertThat(group.deliveredTwice()).as("%s", group).singleElement().satisfies(d -> {
                assertThat(d.clients()).containsExactly("a", "b");
                assertThat(d.receivers()).allSatisfy(r -> assertThat(r.generation()).isPositive());
                assertThat(d.receivers().get(1).generation()).isGreaterThan(d.receivers().get(0).generation());
                assertThat(d.receivers().get(0).memberId()).isNotEqualTo(d.receivers().get(1).memberId());
            });
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

    /**
     * The seeds' auto-commit window: the poll loop hands records to another thread and goes on polling, auto-commit
     * commits the position, and the processing of some records fails. The broker saw them delivered; only the
     * processing reports ({@code recordProcessed}) tell that they were skipped, and a fresh consumer of the group
     * indeed never sees them.
     */
    @Test
    void autoCommittedRecordsWhoseProcessingFailedAreReportedSkippedAndNeverSeenAgain() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().seed(165).topic("orders", 1, 1).start()) {
            produce(cluster, 20);
            Set<Long> failing = Set.of(4L, 5L, 13L);
            Map<String, Object> config = cluster.consumerConfig("billing");
            config.put("client.id", "a");
            config.put("enable.auto.commit", "true");
            config.put("auto.commit.interval.ms", "50");
            config.put("auto.offset.reset", "earliest");
            ExecutorService processing = Executors.newSingleThreadExecutor();
            AtomicInteger handled = new AtomicInteger();
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
                consumer.subscribe(List.of("orders"));
                TopicPartition tp = new TopicPartition("orders", 0);
                await().atMost(Duration.ofSeconds(20)).until(() -> {
                    for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(20))) {
                        processing.execute(() -> {
                            handled.incrementAndGet();
                            if (!failing.contains(r.offset())) { // the others throw in real life; here they just end
                                cluster.recordProcessed("billing", r.topic(), r.partition(), r.offset());
                            }
                        });
                    }
                    Long committed = cluster.group("billing").committed().get(new GroupPartition("orders", 0));
                    return handled.get() == 20 && committed != null && committed == 20;
                });
            } finally {
                processing.shutdown();
            }

            GroupHistory group = cluster.history().group("billing");
            assertThat(group.skipped()).as("%s", group)
                    .extracting(s -> s.firstOffset() + ".." + s.lastOffset()).containsExactly("4..5", "13..13");
            assertThat(group.skipped()).allSatisfy(s -> assertThat(s.toString()).contains("no member processed them"));
            assertThat(group.deliveredTwice()).isEmpty();
            assertThatThrownBy(() -> SamsaAssertions.assertThat(cluster).history().group("billing").hasNoSkippedRecords())
                    .hasMessageContaining("orders-0 offsets 4..5");
            // A fresh member of the group starts at the committed offset: the failed records are gone for good.
            assertThat(pollAllOrNothing(cluster, "billing", "fresh")).isEmpty();
        }
    }

    /** The check itself, on a hand-built history: Samsa's brokers refuse a sequence gap, so none gets acknowledged. */
    @Test
    void acknowledgedBatchesOfOneProducerWhoseSequencesSkipOrGoBackAreOutOfOrder() {
        TopicPartition tp = new TopicPartition("orders", 0);
        List<AckedBatch> acked = List.of(
                batch(tp, 0, 2, 7, 0, 0), batch(tp, 3, 3, 7, 0, 3), // 0..2 then 3: in order
                batch(tp, 3, 3, 7, 0, 3), // the same batch answered twice (a retried duplicate): once
                batch(tp, 4, 5, 7, 0, 6), // a gap: 4 and 5 never came
                batch(tp, 6, 6, 7, 0, 2), // back to 2
                batch(tp, 7, 7, 7, 1, 0), // a new epoch starts at 0
                batch(tp, 8, 8, 9, 0, Integer.MAX_VALUE), batch(tp, 9, 9, 9, 0, 0)); // the sequence wraps
        assertThat(History.outOfOrder(acked)).extracting(o -> o.baseOffset() + ": " + o.expectedSequence() + "->" + o.baseSequence())
                .containsExactly("4: 4->6", "6: 8->2");
    }

    @Test
    void aProduceWithASequenceGapIsRefusedSoNothingAcknowledgedIsOutOfOrder() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().seed(166).topic("orders", 1, 1).start();
             RawConnection connection = RawConnection.connect(cluster.broker(1))) {
            InitProducerIdResponse init = connection.send(new InitProducerIdRequest.Builder(new InitProducerIdRequestData()
                    .setTransactionalId(null).setTransactionTimeoutMs(Integer.MAX_VALUE).setProducerId(-1)
                    .setProducerEpoch((short) -1)).build(connection.latestVersion(ApiKeys.INIT_PRODUCER_ID)));
            InitProducerIdResponseData producer = init.data();
            assertThat(rawProduce(connection, producer, 0, "a", "b")).isEqualTo(Errors.NONE.code());
            assertThat(rawProduce(connection, producer, 5, "after a gap")).isEqualTo(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER.code());
            assertThat(rawProduce(connection, producer, 2, "c")).isEqualTo(Errors.NONE.code());

            History history = cluster.history();
            assertThat(history.acknowledgedBatches()).isEqualTo(2);
            assertThat(history.outOfOrder()).as("%s", history).isEmpty();
            SamsaAssertions.assertThat(cluster).history().hasNoOutOfOrderSequences();
        }
    }

    private static short rawProduce(RawConnection connection, InitProducerIdResponseData producer, int sequence,
            String... values) throws Exception {
        SimpleRecord[] records = new SimpleRecord[values.length];
        for (int i = 0; i < values.length; i++) {
            records[i] = new SimpleRecord(values[i].getBytes(StandardCharsets.UTF_8));
        }
        ProduceRequestData.TopicProduceData topic = new ProduceRequestData.TopicProduceData().setName("orders");
        topic.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(
                MemoryRecords.withIdempotentRecords(Compression.NONE, producer.producerId(), producer.producerEpoch(),
                        sequence, records)));
        ProduceRequestData data = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(10_000);
        data.topicData().add(topic);
        ProduceResponse response = connection.send(ProduceRequest.builder(data).build((short) 11));
        return response.data().responses().iterator().next().partitionResponses().get(0).errorCode();
    }

    private static AckedBatch batch(TopicPartition tp, long base, long last, long producerId, int epoch, int sequence) {
        return new AckedBatch(tp, base, last, producerId, (short) epoch, sequence, 0, (short) -1, 1, 0);
    }

    private static void produce(KafkaCluster cluster, int count) throws Exception {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(cluster.producerConfig())) {
            for (int n = 0; n < count; n++) {
                producer.send(new ProducerRecord<>("orders", 0, "k", "r" + n)).get();
            }
        }
    }

    private static List<String> pollAll(KafkaCluster cluster, String group, String clientId, int count) {
        return pollAll(cluster, group, clientId, count, Map.of());
    }

    private static List<String> pollAll(KafkaCluster cluster, String group, String clientId, int count,
            Map<String, Object> extra) {
        Map<String, Object> config = cluster.consumerConfig(group);
        config.putAll(extra);
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

    /** What a new member of {@code group} gets from the committed offsets on, within a few polls. */
    private static List<String> pollAllOrNothing(KafkaCluster cluster, String group, String clientId) {
        Map<String, Object> config = cluster.consumerConfig(group);
        config.put("client.id", clientId);
        config.put("enable.auto.commit", "false");
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
            consumer.subscribe(List.of("orders"));
            TopicPartition tp = new TopicPartition("orders", 0);
            await().atMost(Duration.ofSeconds(20)).until(() -> {
                consumer.poll(Duration.ofMillis(20)).forEach(r -> values.add(r.value()));
                return consumer.assignment().contains(tp) && consumer.position(tp) >= 20;
            });
            consumer.poll(Duration.ofMillis(100)).forEach(r -> values.add(r.value()));
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
