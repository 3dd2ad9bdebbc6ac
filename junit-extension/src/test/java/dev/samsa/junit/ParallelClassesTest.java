package dev.samsa.junit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.samsa.KafkaCluster;
import dev.samsa.junit.Fixtures.Fixture;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** Classes running in parallel each get their own cluster, ports and data directory. */
class ParallelClassesTest {

    /** Both classes wait here with their clusters up, which proves they ran at the same time. */
    static final CyclicBarrier BOTH_RUNNING = new CyclicBarrier(2);
    static final Map<Class<?>, KafkaCluster> clusters = new ConcurrentHashMap<>();

    /** Uses its own cluster with real clients, then waits for the other class to be running too. */
    static void useAndMeet(Class<?> testClass, KafkaCluster cluster, @BootstrapServers String bootstrap) throws Exception {
        clusters.put(testClass, cluster);
        Map<String, Object> producerConfig = cluster.producerConfig();
        producerConfig.put("bootstrap.servers", bootstrap);
        try (var producer = new KafkaProducer<String, String>(producerConfig)) {
            producer.send(new ProducerRecord<>("shared-name", testClass.getSimpleName())).get();
        }
        BOTH_RUNNING.await(60, TimeUnit.SECONDS);
        // The other cluster has a topic of the same name; this one still holds only its own record.
        try (var consumer = new KafkaConsumer<String, String>(cluster.consumerConfig(null))) {
            TopicPartition tp = new TopicPartition("shared-name", 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            List<String> values = new java.util.ArrayList<>();
            while (consumer.position(tp) < 1) {
                consumer.poll(java.time.Duration.ofMillis(100)).forEach(r -> values.add(r.value()));
            }
            assertThat(values).containsExactly(testClass.getSimpleName());
        }
    }

    @Fixture
    @EmbeddedKafkaCluster(topics = @Topic(name = "shared-name"))
    static class First {
        @Test
        void test(KafkaCluster cluster, @BootstrapServers String bootstrap) throws Exception {
            useAndMeet(First.class, cluster, bootstrap);
        }
    }

    @Fixture
    @EmbeddedKafkaCluster(topics = @Topic(name = "shared-name"))
    static class Second {
        @Test
        void test(KafkaCluster cluster, @BootstrapServers String bootstrap) throws Exception {
            useAndMeet(Second.class, cluster, bootstrap);
        }
    }

    @Test
    void twoClassesInParallelEachHaveTheirOwnClusterPortsAndDirectory() {
        clusters.clear();
        BOTH_RUNNING.reset();

        var results = Fixtures.run(Map.of(
                        "junit.jupiter.execution.parallel.enabled", "true",
                        "junit.jupiter.execution.parallel.mode.default", "concurrent",
                        "junit.jupiter.execution.parallel.mode.classes.default", "concurrent",
                        "junit.jupiter.execution.parallel.config.strategy", "fixed",
                        "junit.jupiter.execution.parallel.config.fixed.parallelism", "2"),
                First.class, Second.class);

        results.testEvents().assertStatistics(stats -> stats.succeeded(2).failed(0));
        KafkaCluster first = clusters.get(First.class);
        KafkaCluster second = clusters.get(Second.class);
        assertThat(first).isNotSameAs(second);
        Set<Integer> ports = clusters.values().stream().map(c -> c.broker(1).port()).collect(Collectors.toSet());
        assertThat(ports).as("broker ports").hasSize(2);
        Set<Path> directories = clusters.values().stream().map(KafkaCluster::dataDirectory).collect(Collectors.toSet());
        assertThat(directories).as("data directories").hasSize(2);
        clusters.values().forEach(c -> assertThat(Fixtures.acceptsConnections(c.broker(1).port())).isFalse());
    }
}
