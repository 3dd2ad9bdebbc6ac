package dev.samsa.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.samsa.KafkaCluster;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka Streams state on compacted topics, three brokers: a KTable whose local state is wiped restores from its
 * compacted changelog to exactly the latest value of each key, reading one record per key; a GlobalKTable over a
 * compacted topic holds the latest values. Compaction runs on demand (rollSegments + compact), as a test wants it.
 */
class CompactedStreamsTest {

    private static final int KEYS = 50;
    private static final int UPDATES = 1_000;

    @TempDir
    Path stateDir;

    @Test
    void aWipedKTableRestoresTheLatestValuesFromItsCompactedChangelog() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).topic("prices", 1, 3).start()) {
            StreamsBuilder builder = new StreamsBuilder();
            builder.<String, String>stream("prices").toTable(Materialized.as("latest-prices"));
            Topology topology = builder.build();

            AtomicLong restored = new AtomicLong();
            KafkaStreams first = start(new KafkaStreams(topology, props(cluster, "pricing")), restored);
            produceUpdates(cluster, "prices");
            await().atMost(30, TimeUnit.SECONDS).ignoreException(InvalidStateStoreException.class).untilAsserted(() -> assertThat(storeContents(first, "latest-prices")).isEqualTo(latestValues()));
            first.close();
            first.cleanUp();   // the local state is gone: only the changelog can bring it back

            String changelog = "pricing-latest-prices-changelog";
            cluster.rollSegments(changelog);
            assertThat(cluster.compact(changelog)).as("records compacted away on the three replicas")
                    .isEqualTo(3L * (UPDATES - KEYS));

            KafkaStreams second = start(new KafkaStreams(topology, props(cluster, "pricing")), restored);
            try {
                await().atMost(30, TimeUnit.SECONDS).ignoreException(InvalidStateStoreException.class).untilAsserted(() -> assertThat(storeContents(second, "latest-prices")).isEqualTo(latestValues()));
                assertThat(restored.get()).as("records restored from the compacted changelog").isEqualTo(KEYS);
            } finally {
                second.close();
            }
        }
    }

    @Test
    void aGlobalKTableReadsTheLatestValuesOfACompactedTopic() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3)
                .topic("catalog", 1, 3, Map.of("cleanup.policy", "compact")).start()) {
            produceUpdates(cluster, "catalog");
            cluster.rollSegments("catalog");
            cluster.compact("catalog");
            assertThat(cluster.partition("catalog", 0).highWatermark()).as("offsets survive compaction").isEqualTo(UPDATES);

            StreamsBuilder builder = new StreamsBuilder();
            builder.globalTable("catalog", Materialized.as("global-catalog"));
            AtomicLong restored = new AtomicLong();
            KafkaStreams streams = new KafkaStreams(builder.build(), props(cluster, "catalog-reader"));
            streams.setGlobalStateRestoreListener(countingListener(restored));
            streams.start();
            try {
                await().atMost(30, TimeUnit.SECONDS).until(() -> streams.state() == KafkaStreams.State.RUNNING);
                assertThat(storeContents(streams, "global-catalog")).isEqualTo(latestValues());
                assertThat(restored.get()).as("one record per key read from the compacted topic").isEqualTo(KEYS);
            } finally {
                streams.close();
            }
        }
    }

    private static String key(int i) {
        return "sku-" + (i % KEYS);
    }

    private static Map<String, String> latestValues() {
        Map<String, String> latest = new TreeMap<>();
        for (int i = 0; i < UPDATES; i++) {
            latest.put(key(i), "price-" + i);
        }
        return latest;
    }

    private static void produceUpdates(KafkaCluster cluster, String topic) throws Exception {
        Map<String, Object> config = cluster.producerConfig();
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        try (var producer = new KafkaProducer<String, String>(config)) {
            for (int i = 0; i < UPDATES; i++) {
                producer.send(new ProducerRecord<>(topic, key(i), "price-" + i));
            }
            producer.flush();
        }
    }

    private static Map<String, String> storeContents(KafkaStreams streams, String store) {
        ReadOnlyKeyValueStore<String, String> view = streams.store(
                StoreQueryParameters.fromNameAndType(store, QueryableStoreTypes.keyValueStore()));
        Map<String, String> contents = new TreeMap<>();
        try (KeyValueIterator<String, String> all = view.all()) {
            all.forEachRemaining((KeyValue<String, String> kv) -> contents.put(kv.key, kv.value));
        }
        return contents;
    }

    private static KafkaStreams start(KafkaStreams streams, AtomicLong restored) {
        streams.setGlobalStateRestoreListener(countingListener(restored));
        streams.start();
        return streams;
    }

    private static StateRestoreListener countingListener(AtomicLong restored) {
        return new StateRestoreListener() {
            @Override
            public void onRestoreStart(TopicPartition tp, String store, long startingOffset, long endingOffset) {
            }

            @Override
            public void onBatchRestored(TopicPartition tp, String store, long batchEndOffset, long numRestored) {
            }

            @Override
            public void onRestoreEnd(TopicPartition tp, String store, long totalRestored) {
                restored.addAndGet(totalRestored);
            }
        };
    }

    private Properties props(KafkaCluster cluster, String applicationId) {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
        props.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 3);
        // No record cache: every update reaches the changelog, so compaction has something to remove.
        props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        props.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        props.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
        // A Streams member does not leave its group on close: a restarted instance takes its place at once only as
        // the same static member (else it waits out the old member's session timeout, as against Kafka).
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG), applicationId + "-1");
        return props;
    }
}
