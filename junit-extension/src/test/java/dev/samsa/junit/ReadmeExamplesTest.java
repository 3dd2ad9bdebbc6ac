package dev.samsa.junit;

import static dev.samsa.junit.SamsaAssertions.assertThat;
import static dev.samsa.junit.SamsaConditions.awaitCluster;
import static dev.samsa.junit.SamsaConditions.groupStable;
import static dev.samsa.junit.SamsaConditions.highWatermarkReached;
import static dev.samsa.junit.SamsaConditions.isrSize;
import static org.assertj.core.api.Assertions.assertThat;

import dev.samsa.KafkaCluster;
import dev.samsa.junit.EmbeddedKafkaCluster.ClockType;
import dev.samsa.junit.EmbeddedKafkaCluster.Lifecycle;
import dev.samsa.time.ClusterClock;
import java.io.IOException;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every Java example of the README's JUnit section and of the JUnit guide (docs/junit.md), as a test that runs;
 * {@link #everyJavaExampleOfTheReadmeIsInThisFile} fails when those and this file drift apart. Each example is a
 * {@code @Nested} class here where the README shows a top-level class.
 */
class ReadmeExamplesTest {

    /** Samsa's own folder; the compatibility projects (src/it) compile this file from there and run it elsewhere. */
    private static final Path PROJECT = Path.of(System.getProperty("samsa.project.dir", "."));
    private static final Path README = PROJECT.resolve("README.md");
    private static final Path GUIDE = PROJECT.resolve("docs/junit.md");
    private static final Path THIS_FILE = PROJECT.resolve("junit-extension/src/test/java/dev/samsa/junit/ReadmeExamplesTest.java");
    private static final String SECTION = "## JUnit 5 extension";

    @Test
    void everyJavaExampleOfTheReadmeIsInThisFile() throws IOException {
        String readme = Files.readString(README);
        int start = readme.indexOf(SECTION);
        assertThat(start).as("README section \"%s\"", SECTION).isNotNegative();
        int end = readme.indexOf("\n## ", start + SECTION.length());
        List<String> readmeExamples = javaBlocks(readme.substring(start, end < 0 ? readme.length() : end));
        List<String> guideExamples = javaBlocks(Files.readString(GUIDE));
        String source = normalize(Files.readString(THIS_FILE));

        assertThat(readmeExamples).as("Java examples in the README's JUnit section").hasSize(1);
        assertThat(guideExamples).as("Java examples in docs/junit.md").hasSizeGreaterThanOrEqualTo(8);
        assertThat(readmeExamples).allSatisfy(example -> assertThat(source).as("this file").contains(example));
        assertThat(guideExamples).allSatisfy(example -> assertThat(source).as("this file").contains(example));
    }

    private static List<String> javaBlocks(String markdown) {
        List<String> examples = new ArrayList<>();
        Matcher block = Pattern.compile("```java\n(.*?)```", Pattern.DOTALL).matcher(markdown);
        while (block.find()) {
            examples.add(normalize(block.group(1)));
        }
        return examples;
    }

    /** Lines without their indentation, blank lines and this file's @Nested markers dropped. */
    private static String normalize(String code) {
        return code.lines().map(String::strip).filter(line -> !line.isEmpty() && !line.equals("@Nested"))
                .collect(Collectors.joining("\n"));
    }

    // README, "## JUnit 5 extension", and docs/junit.md: the first example

    @Nested
    @EmbeddedKafkaCluster(topics = @Topic(name = "orders", partitions = 3))
    class OrderServiceTest {

        @Test
        void placesAnOrder(KafkaCluster cluster) throws Exception {
            try (var producer = new KafkaProducer<String, String>(cluster.producerConfig())) {
                producer.send(new ProducerRecord<>("orders", "id-1", "created")).get();
            }
            assertThat(cluster).topic("orders").hasRecordCount(1).containsValues("created");
        }
    }

    // docs/junit.md: Configuration and injection

    @Nested
    @EmbeddedKafkaCluster(brokers = 3, topics = @Topic(name = "payments", partitions = 6, replicationFactor = 3),
            brokerConfig = "min.insync.replicas=2")
    class PaymentsTest {

        private final String bootstrap;

        PaymentsTest(@BootstrapServers String bootstrap) {
            this.bootstrap = bootstrap;
        }

        @BeforeEach
        void createRefunds(KafkaCluster cluster) {
            cluster.createTopic("refunds", 1, 3);
        }

        @Test
        void everyBrokerIsListed() {
            assertThat(bootstrap.split(",")).hasSize(3);
        }
    }

    // docs/junit.md: A manual clock, and a cluster per test

    @Nested
    @EmbeddedKafkaCluster(clock = ClockType.MANUAL, clockStart = "2026-01-01T00:00:00Z", seed = 42,
            lifecycle = Lifecycle.PER_METHOD)
    class RetentionTest {

        @Test
        void startsAtClockStart(ClusterClock clock) {
            assertThat(clock.instant()).isEqualTo(Instant.parse("2026-01-01T00:00:00Z"));
            clock.advance(Duration.ofHours(1)); // runs every cluster timer due within that hour, in order
        }

        @Test
        void neverSeesAnotherTestsClock(ClusterClock clock) {
            assertThat(clock.instant()).isEqualTo(Instant.parse("2026-01-01T00:00:00Z"));
        }
    }

    // docs/junit.md: Configured in code

    @Nested
    class InventoryTest {

        @RegisterExtension
        static SamsaExtension kafka = SamsaExtension.builder()
                .brokers(3)
                .topic("stock", 3, 3)
                .brokerConfig("min.insync.replicas", "2")
                .manualClock(Instant.parse("2026-01-01T00:00:00Z"))
                .build();

        @Test
        void stockIsReplicatedThreeTimes(KafkaCluster cluster) {
            assertThat(cluster).partition("stock", 0).hasIsrSize(3);
        }
    }

    // docs/junit.md: Your own annotation

    @Target(ElementType.TYPE)
    @Retention(RetentionPolicy.RUNTIME)
    @EmbeddedKafkaCluster(brokers = 3, topics = @Topic(name = "invoices", replicationFactor = 3))
    @interface BillingKafka {
    }

    @BillingKafka
    @Nested
    class InvoiceTest {

        @Test
        void invoicesAreReplicated(KafkaCluster cluster) {
            assertThat(cluster).partition("invoices", 0).hasIsrSize(3);
        }
    }

    // docs/junit.md: Spring Kafka and other code that reads a system property

    @Nested
    @EmbeddedKafkaCluster(topics = @Topic(name = "greetings"))
    class GreetingListenerTest {

        @Test
        void findsTheBrokersAsSpringKafkaTestsDo() throws Exception {
            String brokers = System.getProperty("spring.embedded.kafka.brokers");
            Map<String, Object> config = Map.of("bootstrap.servers", brokers,
                    "key.serializer", StringSerializer.class, "value.serializer", StringSerializer.class);
            try (var producer = new KafkaProducer<String, String>(config)) {
                producer.send(new ProducerRecord<>("greetings", "hello")).get();
            }
        }
    }

    // docs/junit.md: AssertJ

    @Nested
    @EmbeddedKafkaCluster(topics = {@Topic(name = "orders"), @Topic(name = "amounts")})
    class CheckoutTest {

        @Test
        void checkoutWritesTheOrderAndItsAmount(KafkaCluster cluster) throws Exception {
            Checkout.run(cluster.bootstrapServers()); // the code under test: two orders, one amount

            assertThat(cluster).topic("orders").hasRecordCount(2).containsExactlyValues("created", "paid");
            assertThat(cluster).topic("amounts", new LongDeserializer()).containsValues(1200L);
            assertThat(cluster).partition("orders", 0).hasLeader(1).hasHighWatermark(2);
            assertThat(cluster).timeline().hasEventsInOrder("TopicCreated", "HighWatermark");
        }

        @Test
        void theBillingGroupCommitsWhatItRead(KafkaCluster cluster) throws Exception {
            Checkout.run(cluster.bootstrapServers());
            try (var consumer = new KafkaConsumer<String, String>(cluster.consumerConfig("billing"))) {
                consumer.subscribe(List.of("orders"));
                awaitCluster().until(() -> !consumer.poll(Duration.ofMillis(100)).isEmpty());
                consumer.commitSync();

                assertThat(cluster).group("billing").isStable().hasMemberCount(1).hasLag("orders", 0, 0);
            }
        }
    }

    /** Stands in for the application code that the AssertJ example tests. */
    static final class Checkout {
        static void run(String bootstrap) throws Exception {
            Map<String, Object> config = Map.of("bootstrap.servers", bootstrap,
                    "key.serializer", StringSerializer.class, "value.serializer", StringSerializer.class);
            try (var producer = new KafkaProducer<String, String>(config)) {
                producer.send(new ProducerRecord<>("orders", "order-1", "created")).get();
                producer.send(new ProducerRecord<>("orders", "order-1", "paid")).get();
            }
            Map<String, Object> amounts = Map.of("bootstrap.servers", bootstrap,
                    "key.serializer", StringSerializer.class,
                    "value.serializer", org.apache.kafka.common.serialization.LongSerializer.class);
            try (var producer = new KafkaProducer<String, Long>(amounts)) {
                producer.send(new ProducerRecord<>("amounts", "order-1", 1200L)).get();
            }
        }
    }

    // docs/junit.md: Awaitility

    @Nested
    @EmbeddedKafkaCluster(brokers = 3, topics = @Topic(name = "orders", replicationFactor = 3),
            lifecycle = Lifecycle.PER_METHOD)
    class ReplicationTest {

        @Test
        void aCrashedFollowerRejoinsTheIsr(KafkaCluster cluster) {
            int follower = cluster.partition("orders", 0).leader() % 3 + 1;
            cluster.broker(follower).crash();
            awaitCluster().until(isrSize(cluster, "orders", 0, 2));

            cluster.broker(follower).restart();
            awaitCluster().untilAsserted(isrSize(cluster, "orders", 0, 3));
        }

        @Test
        void recordsBecomeVisibleAtTheHighWatermark(KafkaCluster cluster) {
            try (var producer = new KafkaProducer<String, String>(cluster.producerConfig())) {
                producer.send(new ProducerRecord<>("orders", "created"));
                awaitCluster().until(highWatermarkReached(cluster, "orders", 0, 1));
            }
        }

        @Test
        void aConsumerGroupSettles(KafkaCluster cluster) {
            try (var consumer = new KafkaConsumer<String, String>(cluster.consumerConfig("billing"))) {
                consumer.subscribe(List.of("orders"));
                awaitCluster().until(() -> {
                    consumer.poll(Duration.ofMillis(100)); // a consumer joins its group while it polls
                    return groupStable(cluster, "billing").call();
                });
            }
        }
    }
}
