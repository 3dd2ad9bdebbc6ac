package dev.samsa.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.samsa.KafkaCluster;
import dev.samsa.TxnState;
import dev.samsa.event.TxnStateChanged;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka Streams against a three-broker Samsa cluster: a word count whose groupBy creates a repartition topic and whose
 * count creates a changelog, both with replication factor 3. Input comes from a real KafkaProducer, output is read
 * with a real KafkaConsumer, and the app runs its own threads, so every wait is an Awaitility poll. Under
 * at-least-once a crash may count a word twice; under exactly_once_v2 (transactions, read_committed) it may not.
 */
class KafkaStreamsTest {

    private static final String INPUT = "text-lines";
    private static final String OUTPUT = "word-counts";
    private static final List<String> WORDS = List.of("kafka", "samsa", "streams", "broker", "replica", "leader", "log");

    @TempDir
    Path stateDir;

    /** Line i holds WORDS[i % 7] and WORDS[(i * 3) % 7], so each word's count is known in advance. */
    private static String line(int i) {
        return WORDS.get(i % WORDS.size()) + " " + WORDS.get((i * 3) % WORDS.size());
    }

    private static Map<String, Long> expectedCounts(int lines) {
        Map<String, Long> counts = new TreeMap<>();
        for (int i = 0; i < lines; i++) {
            for (String w : line(i).split(" ")) {
                counts.merge(w, 1L, Long::sum);
            }
        }
        return counts;
    }

    private static KafkaCluster cluster() {
        return KafkaCluster.builder()
                .brokers(3)
                .topic(INPUT, 3, 3)
                .topic(OUTPUT, 3, 3)
                .start();
    }

    private KafkaStreams wordCount(KafkaCluster cluster, String applicationId) {
        return wordCount(cluster, applicationId, StreamsConfig.AT_LEAST_ONCE);
    }

    private KafkaStreams wordCount(KafkaCluster cluster, String applicationId, String processingGuarantee) {
        StreamsBuilder builder = new StreamsBuilder();
        builder.<String, String>stream(INPUT)
                .flatMapValues(value -> Arrays.asList(value.split(" ")))
                .groupBy((key, word) -> word, Grouped.with(Serdes.String(), Serdes.String()))
                .count(Materialized.as("counts"))
                .toStream()
                .to(OUTPUT, Produced.with(Serdes.String(), Serdes.Long()));

        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, processingGuarantee);
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
        props.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 3);
        // Every update goes downstream (no record cache), and consumed repartition records are purged with
        // DeleteRecords after each commit, so both paths run in a short test.
        props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        props.put(StreamsConfig.REPARTITION_PURGE_INTERVAL_MS_CONFIG, 100);
        props.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        props.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
        KafkaStreams streams = new KafkaStreams(builder.build(), props);
        streams.setUncaughtExceptionHandler(e -> {
            e.printStackTrace();
            return org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse
                    .REPLACE_THREAD;
        });
        return streams;
    }

    private static void produceLines(KafkaCluster cluster, int from, int to) throws Exception {
        Map<String, Object> config = cluster.producerConfig();
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        try (var producer = new KafkaProducer<String, String>(config)) {
            for (int i = from; i < to; i++) {
                producer.send(new ProducerRecord<>(INPUT, "line-" + i, line(i)));
            }
            producer.flush();
        }
    }

    /** Reads the output topic from the beginning and keeps, per word, the last count emitted and every count emitted. */
    private static final class OutputReader implements AutoCloseable {
        private final KafkaConsumer<String, Long> consumer;
        private final Map<String, Long> latest = new TreeMap<>();
        private final Map<String, List<Long>> emitted = new TreeMap<>();
        private long records;

        OutputReader(KafkaCluster cluster) {
            this(cluster, "read_uncommitted");
        }

        OutputReader(KafkaCluster cluster, String isolationLevel) {
            Map<String, Object> config = cluster.consumerConfig(null);
            config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, LongDeserializer.class.getName());
            config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolationLevel);
            consumer = new KafkaConsumer<>(config);
            List<TopicPartition> partitions = new ArrayList<>();
            for (int p = 0; p < 3; p++) {
                partitions.add(new TopicPartition(OUTPUT, p));
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
        }

        Map<String, Long> poll() {
            for (ConsumerRecord<String, Long> r : consumer.poll(Duration.ofMillis(100))) {
                latest.put(r.key(), r.value());
                emitted.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(r.value());
                records++;
            }
            return latest;
        }

        @Override
        public void close() {
            consumer.close();
        }
    }

    @Test
    void wordCountGivesExactCounts() throws Exception {
        int lines = 700;
        try (KafkaCluster cluster = cluster();
                KafkaStreams streams = wordCount(cluster, "word-count");
                OutputReader output = new OutputReader(cluster)) {
            streams.start();
            await().atMost(60, TimeUnit.SECONDS).until(() -> streams.state() == KafkaStreams.State.RUNNING);

            produceLines(cluster, 0, lines);

            Map<String, Long> expected = expectedCounts(lines);
            await().atMost(60, TimeUnit.SECONDS).pollInterval(Duration.ZERO)
                    .untilAsserted(() -> assertThat(output.poll()).isEqualTo(expected));
            assertThat(streams.state()).isEqualTo(KafkaStreams.State.RUNNING);
            // The repartition topic and the changelog exist with the replication factor asked for, and Streams
            // purges what it has consumed from the repartition topic.
            String repartition = "word-count-counts-repartition";
            for (String internal : List.of(repartition, "word-count-counts-changelog")) {
                assertThat(cluster.partition(internal, 0).replicas()).hasSize(3);
            }
            await().atMost(30, TimeUnit.SECONDS).until(() -> {
                long purged = 0;
                for (int p = 0; p < 3; p++) {
                    var partition = cluster.partition(repartition, p);
                    purged += partition.logStartOffset(partition.leader());
                }
                return purged > 0;
            });
        }
    }

    @Test
    void countsSurviveACrashOfTheOutputLeader() throws Exception {
        int lines = 2100;
        try (KafkaCluster cluster = cluster();
                KafkaStreams streams = wordCount(cluster, "word-count-crash");
                OutputReader output = new OutputReader(cluster)) {
            streams.start();
            await().atMost(60, TimeUnit.SECONDS).until(() -> streams.state() == KafkaStreams.State.RUNNING);

            int third = lines / 3;
            produceLines(cluster, 0, third);
            Map<String, Long> firstThird = expectedCounts(third);
            await().atMost(60, TimeUnit.SECONDS).pollInterval(Duration.ZERO)
                    .untilAsserted(() -> assertThat(output.poll()).isEqualTo(firstThird));

            // The second third is in the input when the leader dies: Streams is still working through it.
            produceLines(cluster, third, 2 * third);
            int leader = cluster.partition(OUTPUT, 0).leader();
            cluster.broker(leader).crash();
            assertThat(cluster.partition(OUTPUT, 0).leader()).isNotEqualTo(leader);

            produceLines(cluster, 2 * third, lines);
            Map<String, Long> expected = expectedCounts(lines);
            // At least once: every word is counted at least as often as it occurs; a record processed again after
            // an uncommitted offset would be counted twice.
            await().atMost(90, TimeUnit.SECONDS).pollInterval(Duration.ZERO).untilAsserted(() -> {
                Map<String, Long> seen = output.poll();
                assertThat(seen).containsOnlyKeys(expected.keySet());
                expected.forEach((word, count) -> assertThat(seen.get(word)).as(word).isGreaterThanOrEqualTo(count));
            });
            System.out.println("Counts after crashing broker " + leader + ": observed " + output.latest
                    + ", expected " + expected + " (" + output.records + " output records)");

            // The restarted broker catches up on every partition, including the repartition topic that Streams
            // purged (DeleteRecords) while the broker was down.
            cluster.broker(leader).restart();
            List<String> topics = List.of(INPUT, OUTPUT, "word-count-crash-counts-repartition",
                    "word-count-crash-counts-changelog");
            await().atMost(60, TimeUnit.SECONDS).untilAsserted(() -> {
                for (String topic : topics) {
                    for (int p = 0; p < 3; p++) {
                        assertThat(cluster.partition(topic, p).isr()).as(topic + "-" + p).hasSize(3);
                    }
                }
            });
            assertThat(streams.state()).isEqualTo(KafkaStreams.State.RUNNING);
            String duplicates = expected.entrySet().stream()
                    .filter(e -> !e.getValue().equals(output.latest.get(e.getKey())))
                    .map(e -> e.getKey() + "=" + output.latest.get(e.getKey()) + " (expected " + e.getValue() + ")")
                    .collect(Collectors.joining(", "));
            System.out.println(duplicates.isEmpty() ? "No word was counted twice"
                    : "Counted more than once under at-least-once: " + duplicates);
        }
    }

    /** The transactional id of the application's (one) Streams producer, as its coordinator recorded it. */
    private static String transactionalId(KafkaCluster cluster, String applicationId) {
        return cluster.events().events(TxnStateChanged.class).stream().map(TxnStateChanged::transactionalId)
                .filter(id -> id.startsWith(applicationId + "-")).findFirst().orElseThrow();
    }

    @Test
    void exactlyOnceV2EmitsEveryCountOnceThroughACoordinatorCrashAndRestart() throws Exception {
        int lines = 2100;
        try (KafkaCluster cluster = cluster();
                KafkaStreams streams = wordCount(cluster, "word-count-eos", StreamsConfig.EXACTLY_ONCE_V2);
                OutputReader output = new OutputReader(cluster, "read_committed")) {
            streams.start();
            await().atMost(60, TimeUnit.SECONDS).until(() -> streams.state() == KafkaStreams.State.RUNNING);

            int third = lines / 3;
            produceLines(cluster, 0, third);
            Map<String, Long> firstThird = expectedCounts(third);
            await().atMost(60, TimeUnit.SECONDS).pollInterval(Duration.ZERO)
                    .untilAsserted(() -> assertThat(output.poll()).isEqualTo(firstThird));

            // The second third is in the input when the broker coordinating the Streams producer's transactions dies,
            // so a transaction is open across the crash and its successor coordinator must finish or abort it; the
            // broker comes back while Streams works through the last third.
            produceLines(cluster, third, 2 * third);
            String transactionalId = transactionalId(cluster, "word-count-eos");
            await().atMost(30, TimeUnit.SECONDS).pollInterval(Duration.ZERO)
                    .until(() -> cluster.transaction(transactionalId).state() == TxnState.ONGOING);
            int coordinator = cluster.transaction(transactionalId).coordinator();
            cluster.broker(coordinator).crash();
            produceLines(cluster, 2 * third, lines - third / 2);
            cluster.broker(coordinator).restart();
            produceLines(cluster, lines - third / 2, lines);

            Map<String, Long> expected = expectedCounts(lines);
            await().atMost(90, TimeUnit.SECONDS).pollInterval(Duration.ZERO)
                    .untilAsserted(() -> assertThat(output.poll()).isEqualTo(expected));
            assertThat(streams.state()).isEqualTo(KafkaStreams.State.RUNNING);
            // No record cache: every occurrence of a word emits its new count, so at read_committed each word's counts
            // are 1, 2, ..., n: a count emitted twice would be a duplicate, a missing one a lost update.
            expected.forEach((word, count) -> assertThat(output.emitted.get(word)).as(word)
                    .containsExactlyElementsOf(LongStream.rangeClosed(1, count).boxed().toList()));
            assertThat(output.records).isEqualTo(2L * lines);
        }
    }
}
