package dev.samsa.boot.readme;

import static dev.samsa.junit.SamsaConditions.awaitCluster;
import static org.assertj.core.api.Assertions.assertThat;

import dev.samsa.KafkaCluster;
import dev.samsa.junit.EmbeddedKafkaCluster;
import dev.samsa.junit.EmbeddedKafkaCluster.ClockType;
import dev.samsa.junit.Topic;
import dev.samsa.time.ClusterClock;
import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.test.EmbeddedKafkaBroker;
import org.springframework.kafka.test.context.EmbeddedKafka;

/**
 * Every Java example of the README's Spring section and of the Spring guide (docs/spring.md), as a test that runs; the
 * first tests fail when those and these files drift apart, or when the guide's migration table misses an attribute of
 * the {@code @EmbeddedKafka} (or a method of the {@code EmbeddedKafkaBroker}) of the Spring Kafka on the classpath.
 * Each example is a {@code @Nested} class here where the README shows a top-level class.
 */
class SpringReadmeExamplesTest {

    /** Samsa's own folder; the Spring Boot projects (src/it) compile this file from there and run it elsewhere. */
    private static final Path PROJECT = Path.of(System.getProperty("samsa.project.dir", "."));
    private static final Path HERE = PROJECT.resolve("src/it/spring/src/test/java/dev/samsa/boot/readme");
    private static final Path GUIDE = PROJECT.resolve("docs/spring.md");
    private static final String SECTION = "## Spring Boot tests";

    /** The README's Spring section, up to the next "## " heading. */
    private static String readmeSection() throws IOException {
        String readme = Files.readString(PROJECT.resolve("README.md"));
        int start = readme.indexOf(SECTION);
        assertThat(start).as("README section \"%s\"", SECTION).isNotNegative();
        int end = readme.indexOf("\n## ", start + SECTION.length());
        return readme.substring(start, end < 0 ? readme.length() : end);
    }

    private static List<String> javaBlocks(String markdown) {
        List<String> examples = new ArrayList<>();
        Matcher block = Pattern.compile("```java\n(.*?)```", Pattern.DOTALL).matcher(markdown);
        while (block.find()) {
            examples.add(normalize(block.group(1)));
        }
        return examples;
    }

    @Test
    void everyJavaExampleOfTheSpringSectionIsHere() throws IOException {
        List<String> readmeExamples = javaBlocks(readmeSection());
        List<String> guideExamples = javaBlocks(Files.readString(GUIDE));
        String source = normalize(Files.readString(HERE.resolve("SpringReadmeExamplesTest.java"))) + "\n"
                + normalize(Files.readString(HERE.resolve("OrderListener.java")));

        assertThat(readmeExamples).as("Java examples in the README's Spring section").hasSize(1);
        assertThat(guideExamples).as("Java examples in docs/spring.md").hasSize(4);
        assertThat(readmeExamples).allSatisfy(example -> assertThat(source).as("these files").contains(example));
        assertThat(guideExamples).allSatisfy(example -> assertThat(source).as("these files").contains(example));
    }

    @Test
    void theMigrationTableNamesEveryAttributeOfEmbeddedKafkaAndEveryMethodOfTheBroker() throws IOException {
        String guide = Files.readString(GUIDE);
        int header = guide.indexOf("| Spring Kafka | Samsa |");
        assertThat(header).as("docs/spring.md's migration table").isNotNegative();
        String table = guide.substring(header);
        List<String> names = new ArrayList<>();
        Arrays.stream(EmbeddedKafka.class.getDeclaredMethods()).map(Method::getName).forEach(names::add);
        Arrays.stream(EmbeddedKafkaBroker.class.getDeclaredMethods()).filter(m -> Modifier.isPublic(m.getModifiers()))
                .map(Method::getName).forEach(names::add);

        assertThat(names).contains("count", "topics", "consumeFromAnEmbeddedTopic")
                .allSatisfy(name -> assertThat(table).as("the migration table").contains("`" + name));
    }

    /** Lines without their indentation, blank lines, comments of these files and their @Nested markers dropped. */
    private static String normalize(String code) {
        return code.lines().map(String::strip)
                .filter(line -> !line.isEmpty() && !line.equals("@Nested") && !line.startsWith("// ##"))
                .collect(Collectors.joining("\n"));
    }

    // ## docs/spring.md (and the README's Spring section): a test of the listener

    @Nested
    @SpringBootTest
    @EmbeddedKafkaCluster(topics = @Topic(name = "orders", partitions = 3))
    class OrderListenerTest {

        @Autowired
        KafkaTemplate<String, String> template;

        @Autowired
        OrderListener listener;

        @Test
        void receivesWhatIsSent() throws Exception {
            template.send("orders", "id-1", "created").get();
            awaitCluster().until(() -> listener.received().contains("created"));
        }
    }

    // ## docs/spring.md: faults and time

    @Nested
    @SpringBootTest
    @EmbeddedKafkaCluster(brokers = 3, clock = ClockType.MANUAL, brokerConfig = "min.insync.replicas=2",
            topics = @Topic(name = "orders", partitions = 3, replicationFactor = 3))
    class OrderFailoverTest {

        @Autowired
        KafkaCluster cluster;

        @Autowired
        ClusterClock clock;

        @Autowired
        KafkaTemplate<String, String> template;

        @Autowired
        OrderListener listener;

        @Test
        void receivesEveryOrderWhenTheLeaderCrashes() throws Exception {
            template.send("orders", 0, "id-1", "created").get();
            cluster.broker(cluster.partition("orders", 0).leader()).crash();
            clock.advance(Duration.ofSeconds(46)); // past the session timeout: the listener, still polling, stays
            template.send("orders", 0, "id-1", "paid").get();
            awaitCluster().until(() -> listener.received().containsAll(List.of("created", "paid")));
        }
    }

    // ## docs/spring.md: a property of the application's own

    @Nested
    @SpringBootTest(properties = "billing.kafka.brokers=${spring.embedded.kafka.brokers}")
    @EmbeddedKafkaCluster
    class BillingBrokersTest {

        @Value("${billing.kafka.brokers}")
        String billingBrokers;

        @Test
        void billingUsesTheCluster(KafkaCluster cluster) {
            assertThat(billingBrokers).isEqualTo(cluster.bootstrapServers());
        }
    }
}
