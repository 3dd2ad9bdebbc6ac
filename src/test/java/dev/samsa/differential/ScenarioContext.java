package dev.samsa.differential;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.awaitility.Awaitility;

/**
 * A scenario's view of one target: names unique to the scenario, clients on the target's bootstrap servers (closed when
 * the scenario ends), a few helpers every scenario needs, and the {@link Observation} it fills.
 */
final class ScenarioContext implements AutoCloseable {

    static final Duration WAIT = Duration.ofSeconds(30);

    private final Scenario scenario;
    private final ClusterUnderTest cluster;
    private final Observation observation = new Observation();
    private final Deque<AutoCloseable> closeables = new ArrayDeque<>();
    private Admin admin;

    ScenarioContext(Scenario scenario, ClusterUnderTest cluster) {
        this.scenario = scenario;
        this.cluster = cluster;
    }

    ClusterUnderTest cluster() {
        return cluster;
    }

    Observation obs() {
        return observation;
    }

    /** A topic, group or transactional id of this scenario: the same on every target. */
    String name(String suffix) {
        return scenario.name() + "-" + suffix;
    }

    Admin admin() {
        if (admin == null) {
            admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers()));
            closeables.push(admin);
        }
        return admin;
    }

    Admin admin(Object... overrides) {
        Map<String, Object> config = new HashMap<>(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers()));
        config.putAll(pairs(overrides));
        Admin a = Admin.create(config);
        closeables.push(a);
        return a;
    }

    /** Creates a topic through the admin client and waits until every partition has a leader. */
    String topic(String suffix, int partitions, Map<String, String> configs) throws Exception {
        return topic(suffix, partitions, 1, configs);
    }

    String topic(String suffix, int partitions, int replicationFactor, Map<String, String> configs) throws Exception {
        String topic = name(suffix);
        admin().createTopics(List.of(new NewTopic(topic, partitions, (short) replicationFactor).configs(configs))).all()
                .get(WAIT.toSeconds(), TimeUnit.SECONDS);
        awaitLeaders(topic, partitions);
        return topic;
    }

    String topic(String suffix, int partitions) throws Exception {
        return topic(suffix, partitions, Map.of());
    }

    void awaitLeaders(String topic, int partitions) {
        await("leaders of " + topic, () -> {
            try {
                TopicDescription d = admin().describeTopics(List.of(topic)).allTopicNames().get(5, TimeUnit.SECONDS).get(topic);
                return d.partitions().size() == partitions && d.partitions().stream().allMatch(p -> p.leader() != null);
            } catch (Exception e) {
                return false;
            }
        });
    }

    KafkaProducer<String, String> producer(Object... overrides) {
        Map<String, Object> config = new HashMap<>();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 30_000);
        config.putAll(pairs(overrides));
        KafkaProducer<String, String> p = new KafkaProducer<>(config);
        closeables.push(() -> p.close(Duration.ofSeconds(5)));
        return p;
    }

    KafkaConsumer<String, String> consumer(Object... overrides) {
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.putAll(pairs(overrides));
        KafkaConsumer<String, String> c = new KafkaConsumer<>(config);
        closeables.push(() -> c.close(Duration.ofSeconds(5)));
        return c;
    }

    /**
     * Every record of {@code topic} from the beginning up to its end offsets as {@code isolation} sees them (the last
     * stable offset for read_committed), one string each: "partition/offset key=value [headers]".
     */
    List<String> readAll(String topic, String isolation) {
        KafkaConsumer<String, String> c = consumer(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        List<TopicPartition> tps = c.partitionsFor(topic, WAIT).stream()
                .map(p -> new TopicPartition(topic, p.partition())).sorted((a, b) -> a.partition() - b.partition()).toList();
        c.assign(tps);
        c.seekToBeginning(tps);
        Map<TopicPartition, Long> end = c.endOffsets(tps, WAIT);
        List<ConsumerRecord<String, String>> seen = new ArrayList<>();
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (tps.stream().anyMatch(tp -> c.position(tp, WAIT) < end.get(tp))) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Did not reach the end offsets " + end + " of " + topic + "; read " + seen);
            }
            c.poll(Duration.ofMillis(200)).forEach(seen::add);
        }
        // Partitions come back in whatever order the fetches completed: by partition, then offset, compares.
        seen.sort(java.util.Comparator.<ConsumerRecord<String, String>>comparingInt(ConsumerRecord::partition)
                .thenComparingLong(ConsumerRecord::offset));
        return seen.stream().map(ScenarioContext::describe).toList();
    }

    List<String> readAll(String topic) {
        return readAll(topic, "read_uncommitted");
    }

    static String describe(ConsumerRecord<?, ?> r) {
        StringBuilder s = new StringBuilder().append(r.partition()).append('/').append(r.offset()).append(' ')
                .append(r.key()).append('=').append(r.value());
        Header[] headers = r.headers().toArray();
        if (headers.length > 0) {
            s.append(" [");
            for (Header h : headers) {
                s.append(h.key()).append(':').append(h.value() == null ? "null" : new String(h.value())).append(';');
            }
            s.append(']');
        }
        return s.toString();
    }

    /** Records each partition's assignment of {@code consumers} sorted, as "c0=[0, 1] c1=[2]". */
    static String assignments(List<? extends KafkaConsumer<?, ?>> consumers) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < consumers.size(); i++) {
            s.append('c').append(i).append('=').append(partitions(consumers.get(i).assignment())).append(' ');
        }
        return s.toString().trim();
    }

    /** A map keyed by partition number, sorted, for a topic's per-partition answers. */
    static <V> Map<Integer, V> byPartition(Map<TopicPartition, V> map) {
        Map<Integer, V> sorted = new TreeMap<>();
        map.forEach((tp, v) -> sorted.put(tp.partition(), v));
        return sorted;
    }

    static List<Integer> partitions(Set<TopicPartition> tps) {
        return tps.stream().map(TopicPartition::partition).sorted().collect(Collectors.toList());
    }

    /** Polls every consumer in turn until {@code done}, or fails after {@link #WAIT}. */
    static void pollUntil(List<? extends KafkaConsumer<?, ?>> consumers, String what, BooleanSupplier done) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Timed out waiting for " + what + "; assignments " + assignments(consumers));
            }
            for (KafkaConsumer<?, ?> c : consumers) {
                c.poll(Duration.ofMillis(50));
            }
        }
    }

    /** Waits for a condition that takes time on a real broker (metadata propagation), failing after {@link #WAIT}. */
    static void await(String what, BooleanSupplier done) {
        Awaitility.await().atMost(WAIT).pollInterval(Duration.ofMillis(50)).alias(what).until(done::getAsBoolean);
    }

    static long elapsedMs(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }

    private static Map<String, Object> pairs(Object... kv) {
        if (kv.length % 2 != 0) {
            throw new IllegalArgumentException("Config overrides come in pairs");
        }
        Map<String, Object> m = new TreeMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    @Override
    public void close() {
        while (!closeables.isEmpty()) {
            try {
                closeables.pop().close();
            } catch (Exception e) {
                // A client that fails to close does not change what the scenario saw.
            }
        }
    }
}
