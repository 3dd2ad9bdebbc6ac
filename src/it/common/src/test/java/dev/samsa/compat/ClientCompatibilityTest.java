package dev.samsa.compat;

import static org.assertj.core.api.Assertions.assertThat;

import dev.samsa.KafkaCluster;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.CreateTopicsResult;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The clients of the project's own kafka-clients (whatever version the project pins) against Samsa's published jar,
 * whose broker carries its own relocated kafka-clients.
 */
class ClientCompatibilityTest {

    private static KafkaCluster cluster;

    @BeforeAll
    static void start() {
        cluster = KafkaCluster.builder().brokers(3).start();
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    @Test
    void theProjectsKafkaClientsIsTheOneOnTheClasspathAndTheBrokersIsRelocated() throws Exception {
        // What kafka-clients' AppInfoParser reads (the class itself moved in 4.4); Samsa's jar leaves it out.
        Properties version = new Properties();
        try (InputStream in = KafkaProducer.class.getResourceAsStream("/kafka/kafka-version.properties")) {
            version.load(in);
        }
        assertThat(version.getProperty("version")).isEqualTo(System.getProperty("expected.kafka.clients.version"));
        assertThat(KafkaProducer.class.getProtectionDomain().getCodeSource().getLocation().toString())
                .contains("kafka-clients");
        assertThat(KafkaCluster.class.getClassLoader()
                .loadClass("dev.samsa.shaded.org.apache.kafka.common.requests.AbstractRequest")).isNotNull();
    }

    @ParameterizedTest
    @ValueSource(strings = {"none", "gzip", "snappy", "lz4", "zstd"})
    void everyCompressionCodecRoundTrips(String codec) throws Exception {
        String topic = "codec-" + codec;
        cluster.createTopic(topic, 2, 3);
        Map<String, Object> config = cluster.producerConfig();
        config.put("compression.type", codec);
        config.put("linger.ms", "5");
        List<String> sent = new ArrayList<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
            for (int i = 0; i < 500; i++) {
                String value = codec + "-" + i + "-" + "x".repeat(i % 50);
                sent.add(value);
                producer.send(new ProducerRecord<>(topic, Integer.toString(i), value));
            }
            producer.flush();
        }
        assertThat(readAll(topic, sent.size())).containsExactlyInAnyOrderElementsOf(sent);
    }

    @Test
    void idempotentProducerWithAcksAll() throws Exception {
        cluster.createTopic("idempotent", 1, 3);
        Map<String, Object> config = cluster.producerConfig();
        config.put("enable.idempotence", "true");
        config.put("acks", "all");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
            for (int i = 0; i < 100; i++) {
                producer.send(new ProducerRecord<>("idempotent", "k", "v" + i)).get(30, TimeUnit.SECONDS);
            }
        }
        List<String> read = readAll("idempotent", 100);
        assertThat(read).hasSize(100).startsWith("v0", "v1").endsWith("v99");
    }

    @Test
    void transactionsCommitAndAbortAsReadCommittedSeesThem() throws Exception {
        cluster.createTopic("transactional", 1, 3);
        Map<String, Object> config = cluster.producerConfig();
        config.put("transactional.id", "compat-tx");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
            producer.initTransactions();
            for (String value : List.of("committed-1", "aborted", "committed-2")) {
                producer.beginTransaction();
                producer.send(new ProducerRecord<>("transactional", "k", value)).get(30, TimeUnit.SECONDS);
                if (value.startsWith("aborted")) {
                    producer.abortTransaction();
                } else {
                    producer.commitTransaction();
                }
            }
        }
        assertThat(readToEnd("transactional", "read_committed")).containsExactly("committed-1", "committed-2");
        assertThat(readToEnd("transactional", "read_uncommitted")).containsExactly("committed-1", "aborted", "committed-2");
    }

    @Test
    void consumerGroupCommitsAndResumes() throws Exception {
        cluster.createTopic("grouped", 3, 3);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(cluster.producerConfig())) {
            for (int i = 0; i < 30; i++) {
                producer.send(new ProducerRecord<>("grouped", "k" + i, "v" + i));
            }
            producer.flush();
        }
        Map<String, Object> config = cluster.consumerConfig("billing");
        config.put("enable.auto.commit", "false");
        int read = 0;
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
            consumer.subscribe(Collections.singletonList("grouped"));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (read < 30 && System.nanoTime() < deadline) {
                read += consumer.poll(Duration.ofMillis(100)).count();
            }
            consumer.commitSync();
            Set<TopicPartition> assigned = consumer.assignment();
            Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(assigned);
            long total = committed.values().stream().mapToLong(OffsetAndMetadata::offset).sum();
            assertThat(total).isEqualTo(30);
        }
        assertThat(read).isEqualTo(30);
        try (KafkaConsumer<String, String> again = new KafkaConsumer<>(config)) {
            again.subscribe(Collections.singletonList("grouped"));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            int more = 0;
            while (again.assignment().isEmpty() && System.nanoTime() < deadline) {
                more += again.poll(Duration.ofMillis(100)).count();
            }
            more += again.poll(Duration.ofMillis(200)).count();
            assertThat(again.assignment()).hasSize(3);
            assertThat(more).as("records read again after the commit").isZero();
        }
    }

    @Test
    void adminCreatesDescribesAndDeletesTopics() throws Exception {
        try (Admin admin = Admin.create(cluster.adminConfig())) {
            CreateTopicsResult created = admin.createTopics(
                    Collections.singletonList(new NewTopic("administered", 4, (short) 3)
                            .configs(Collections.singletonMap("retention.ms", "3600000"))));
            assertThat(created.numPartitions("administered").get(30, TimeUnit.SECONDS)).isEqualTo(4);
            assertThat(created.replicationFactor("administered").get(30, TimeUnit.SECONDS)).isEqualTo(3);
            ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, "administered");
            Config config = admin.describeConfigs(Collections.singletonList(resource))
                    .all().get(30, TimeUnit.SECONDS).get(resource);
            assertThat(config.get("retention.ms").value()).isEqualTo("3600000");
            admin.deleteTopics(Collections.singletonList("administered")).all().get(30, TimeUnit.SECONDS);
            assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS)).doesNotContain("administered");
        }
    }

    private static List<String> readAll(String topic, int expected) {
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cluster.consumerConfig(null))) {
            List<TopicPartition> partitions = new ArrayList<>();
            consumer.partitionsFor(topic).forEach(p -> partitions.add(new TopicPartition(topic, p.partition())));
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (values.size() < expected && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(100))) {
                    values.add(record.value());
                }
            }
        }
        return values;
    }

    /** Partition 0 of {@code topic} from the beginning to the end offset the isolation level answers. */
    private static List<String> readToEnd(String topic, String isolationLevel) {
        Map<String, Object> config = cluster.consumerConfig(null);
        config.put("isolation.level", isolationLevel);
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
            TopicPartition tp = new TopicPartition(topic, 0);
            consumer.assign(Collections.singletonList(tp));
            consumer.seekToBeginning(Collections.singletonList(tp));
            long end = consumer.endOffsets(Collections.singletonList(tp)).get(tp);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (consumer.position(tp) < end && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(100))) {
                    values.add(record.value());
                }
            }
        }
        return values;
    }
}
