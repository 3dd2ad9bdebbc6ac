package dev.samsa.log.cleaner;

import static org.awaitility.Awaitility.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;

import dev.samsa.KafkaCluster;
import dev.samsa.event.Compacted;
import dev.samsa.time.ClusterClock;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/** Compaction with real clients on three brokers: on demand, on the cluster clock, tombstones, replicas. */
class CompactionTest {

    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");
    private static final Map<String, String> COMPACTED = Map.of("cleanup.policy", "compact",
            "message.timestamp.type", "LogAppendTime");

    @Test
    void compactKeepsTheLatestValueOfEveryKeyAtItsOriginalOffset() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(131).topic("table", 1, 3, COMPACTED).start();
             KafkaProducer<String, String> producer = producer(cluster)) {
            for (int i = 0; i < 10_000; i++) {
                producer.send(new ProducerRecord<>("table", "key-" + (i % 100), "value-" + i));
            }
            producer.flush();
            cluster.rollSegments("table");

            long removed = cluster.compact("table");

            assertThat(removed).as("on each of three replicas").isEqualTo(3 * 9_900);
            Map<Long, String> expected = new LinkedHashMap<>();
            for (int i = 9_900; i < 10_000; i++) {
                expected.put((long) i, "key-" + (i % 100) + "=value-" + i);
            }
            assertThat(readAll(cluster, "table", 10_000)).isEqualTo(expected);
            try (KafkaConsumer<String, String> consumer = consumer(cluster)) {
                TopicPartition tp = new TopicPartition("table", 0);
                assertThat(consumer.endOffsets(List.of(tp))).containsEntry(tp, 10_000L);
            }
            assertThat(cluster.events().events()).filteredOn(e -> e.event() instanceof Compacted)
                    .extracting(e -> ((Compacted) e.event()).brokerId()).containsExactlyInAnyOrder(1, 2, 3);
            List<Integer> replicas = cluster.partition("table", 0).replicas();
            assertThat(cluster.partition("table", 0).batches(replicas.get(0)))
                    .as("every replica compacted on its own to the same batches")
                    .isEqualTo(cluster.partition("table", 0).batches(replicas.get(1)));
        }
    }

    @Test
    void theCleanerWaitsForMinCompactionLagAndTheDirtyRatioThenCleansAtTheNextCheck() throws Exception {
        ClusterClock clock = ClusterClock.manual(START);
        Map<String, String> config = new HashMap<>(COMPACTED);
        config.put("min.compaction.lag.ms", "60000");
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(132).clock(clock)
                .topic("lagged", 1, 3, config).start();
             KafkaProducer<String, String> producer = producer(cluster)) {
            sendAll(producer, "lagged", 1_000, 10);
            cluster.rollSegments("lagged");

            // Checks every log.cleaner.backoff.ms (15 s): the records are younger than min.compaction.lag.ms.
            clock.advance(Duration.ofSeconds(45));
            assertThat(compactions(cluster, "lagged")).isEmpty();

            // At 60 s the lag has passed and the log is all dirty: the check at 60 s cleans it on every replica.
            clock.advance(Duration.ofSeconds(15));
            assertThat(compactions(cluster, "lagged")).hasSize(3)
                    .allSatisfy(c -> assertThat(c.recordsRemoved()).isEqualTo(990));
            assertThat(readAll(cluster, "lagged", 1_000)).hasSize(10);

            // Ten more records are far below the dirty ratio of 0.5: nothing more to clean.
            sendAll(producer, "lagged", 10, 10);
            cluster.rollSegments("lagged");
            clock.advance(Duration.ofMinutes(5));
            assertThat(compactions(cluster, "lagged")).hasSize(3);
        }
    }

    @Test
    void maxCompactionLagForcesCleaningOfALogBelowTheRatio() throws Exception {
        ClusterClock clock = ClusterClock.manual(START);
        Map<String, String> config = new HashMap<>(COMPACTED);
        config.put("min.cleanable.dirty.ratio", "1.0"); // a ratio is never above 1: only the lag cleans
        config.put("max.compaction.lag.ms", "120000");
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(133).clock(clock)
                .topic("forced", 1, 3, config).start();
             KafkaProducer<String, String> producer = producer(cluster)) {
            sendAll(producer, "forced", 500, 5);
            cluster.rollSegments("forced");

            clock.advance(Duration.ofSeconds(105));
            assertThat(compactions(cluster, "forced")).isEmpty();

            clock.advance(Duration.ofSeconds(30)); // the check at 135 s is the first past 120 s
            assertThat(compactions(cluster, "forced")).hasSize(3);
            assertThat(readAll(cluster, "forced", 500)).hasSize(5);
        }
    }

    @Test
    void aTombstoneIsReadableForDeleteRetentionMsAfterTheCleaningThatReachedItThenGone() throws Exception {
        ClusterClock clock = ClusterClock.manual(START);
        Map<String, String> config = new HashMap<>(COMPACTED);
        config.put("delete.retention.ms", "60000");
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(134).clock(clock)
                .topic("users", 1, 3, config).start();
             KafkaProducer<String, String> producer = producer(cluster)) {
            producer.send(new ProducerRecord<>("users", "alice", "1"));
            producer.send(new ProducerRecord<>("users", "bob", "1"));
            producer.send(new ProducerRecord<>("users", "alice", null));
            producer.flush();
            cluster.rollSegments("users");

            cluster.compact("users");
            assertThat(readAll(cluster, "users", 3)).containsExactly(Map.entry(1L, "bob=1"), Map.entry(2L, "alice=null"));

            clock.advance(Duration.ofSeconds(59));
            cluster.compact("users");
            assertThat(readAll(cluster, "users", 3)).containsKey(2L);

            clock.advance(Duration.ofSeconds(1));
            cluster.compact("users");
            assertThat(readAll(cluster, "users", 3)).containsExactly(Map.entry(1L, "bob=1"));
        }
    }

    @Test
    void aRecordWithoutAKeyIsRejectedAndAnIdempotentProducerKeepsGoingAcrossACompaction() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(135).topic("keyed", 1, 3, COMPACTED).start();
             KafkaProducer<String, String> producer = producer(cluster)) {
            assertThatThrownBy(() -> producer.send(new ProducerRecord<>("keyed", null, "no key")).get())
                    .isInstanceOf(ExecutionException.class).cause().isInstanceOf(InvalidRecordException.class)
                    .hasMessageContaining("Compacted topic cannot accept message without key in topic partition keyed-0");

            sendAll(producer, "keyed", 200, 4);
            cluster.rollSegments("keyed");
            cluster.compact("keyed");
            sendAll(producer, "keyed", 200, 4); // no OutOfOrderSequence: the producer's last batch survived
            cluster.rollSegments("keyed");
            cluster.compact("keyed");
            assertThat(readAll(cluster, "keyed", 400)).hasSize(4);
        }
    }

    @Test
    void aChangedCleanupPolicyTakesEffectAtTheNextCheck() throws Exception {
        ClusterClock clock = ClusterClock.manual(START);
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(136).clock(clock)
                .topic("later", 1, 3, Map.of("message.timestamp.type", "LogAppendTime")).start();
             KafkaProducer<String, String> producer = producer(cluster);
             Admin admin = Admin.create(cluster.adminConfig())) {
            sendAll(producer, "later", 100, 10);
            cluster.rollSegments("later");
            clock.advance(Duration.ofSeconds(15));
            assertThat(compactions(cluster, "later")).isEmpty();

            ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, "later");
            admin.incrementalAlterConfigs(Map.of(topic, List.of(new AlterConfigOp(
                    new ConfigEntry("cleanup.policy", "compact"), AlterConfigOp.OpType.SET)))).all().get();
            clock.advance(Duration.ofSeconds(15));
            assertThat(compactions(cluster, "later")).hasSize(3);
            assertThat(readAll(cluster, "later", 100)).hasSize(10);
        }
    }

    @Test
    void aFollowerThatFetchesFromAnOffsetTheLeaderCleanedAwayGetsTheNextBatch() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(137).topic("gaps", 1, 3, COMPACTED).start();
             KafkaProducer<String, String> producer = producer(cluster)) {
            int follower = cluster.partition("gaps", 0).replicas().stream()
                    .filter(b -> b != cluster.partition("gaps", 0).leader()).findFirst().orElseThrow();
            cluster.broker(follower).crash();
            sendAll(producer, "gaps", 1_000, 10);
            cluster.rollSegments("gaps");
            cluster.compact("gaps");

            cluster.broker(follower).restart(); // fetches from offset 0, which the leader no longer has
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20)).until(
                    () -> cluster.partition("gaps", 0).isr().contains(follower));
            assertThat(cluster.partition("gaps", 0).logEndOffset(follower)).isEqualTo(1_000);
            assertThat(cluster.partition("gaps", 0).batches(follower))
                    .isEqualTo(cluster.partition("gaps", 0).batches(cluster.partition("gaps", 0).leader()));
        }
    }

    @Test
    void compactDeleteBothCompactsAndAppliesRetention() throws Exception {
        ClusterClock clock = ClusterClock.manual(START);
        Map<String, String> config = new HashMap<>(COMPACTED);
        config.put("cleanup.policy", "compact,delete");
        config.put("retention.ms", "3600000");
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(139).clock(clock)
                .topic("both", 1, 3, config).start();
             KafkaProducer<String, String> producer = producer(cluster)) {
            sendAll(producer, "both", 100, 10);
            cluster.rollSegments("both");
            clock.advance(Duration.ofSeconds(15));
            assertThat(readAll(cluster, "both", 100)).hasSize(10);

            clock.advance(Duration.ofMinutes(65)); // past retention.ms, and a retention check after it
            for (int broker : cluster.partition("both", 0).replicas()) {
                assertThat(cluster.partition("both", 0).logStartOffset(broker)).as("broker %d", broker).isEqualTo(100);
            }
        }
    }

    @Test
    void abortedRecordsAreRemovedAndCommittedOnesKept() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(140).topic("txns", 1, 3, COMPACTED).start()) {
            Map<String, Object> config = new HashMap<>(cluster.producerConfig());
            config.put("transactional.id", "writer");
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(config, new StringSerializer(),
                    new StringSerializer())) {
                producer.initTransactions();
                producer.beginTransaction();
                producer.send(new ProducerRecord<>("txns", "a", "aborted"));
                producer.flush(); // else the abort drops the unsent record and nothing reaches the log
                producer.abortTransaction();
                producer.beginTransaction();
                producer.send(new ProducerRecord<>("txns", "b", "committed"));
                producer.commitTransaction();
            }
            // Both markers written and replicated: nothing is unstable.
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() ->
                    cluster.partition("txns", 0).highWatermark() >= 4
                            && cluster.partition("txns", 0).lastStableOffset() == cluster.partition("txns", 0).highWatermark());
            long end = cluster.partition("txns", 0).highWatermark();
            assertThat(readAll(cluster, "txns", end)).as("read_uncommitted sees the aborted record")
                    .containsValue("a=aborted");

            cluster.rollSegments("txns");
            cluster.compact("txns");

            assertThat(readAll(cluster, "txns", end).values()).containsExactly("b=committed");
        }
    }

    static void sendAll(KafkaProducer<String, String> producer, String topic, int records, int keys) throws Exception {
        for (int i = 0; i < records; i++) {
            producer.send(new ProducerRecord<>(topic, "key-" + (i % keys), "value-" + i));
        }
        producer.flush();
    }

    static List<Compacted> compactions(KafkaCluster cluster, String topic) {
        return cluster.events().events().stream().map(e -> e.event()).filter(e -> e instanceof Compacted)
                .map(e -> (Compacted) e).filter(c -> c.topic().equals(topic)).toList();
    }

    static KafkaProducer<String, String> producer(KafkaCluster cluster) {
        Map<String, Object> config = new HashMap<>(cluster.producerConfig());
        config.put("linger.ms", 5);
        return new KafkaProducer<>(config, new StringSerializer(), new StringSerializer());
    }

    static KafkaConsumer<String, String> consumer(KafkaCluster cluster) {
        return new KafkaConsumer<>(cluster.consumerConfig("reader"), new StringDeserializer(), new StringDeserializer());
    }

    /** Offset to "key=value" of partition 0, from the beginning up to {@code endOffset}. */
    static Map<Long, String> readAll(KafkaCluster cluster, String topic, long endOffset) {
        Map<Long, String> out = new LinkedHashMap<>();
        try (KafkaConsumer<String, String> consumer = consumer(cluster)) {
            TopicPartition tp = new TopicPartition(topic, 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(1)).until(() -> {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    out.put(record.offset(), record.key() + "=" + record.value());
                }
                return consumer.position(tp) >= endOffset;
            });
        }
        return out;
    }
}
