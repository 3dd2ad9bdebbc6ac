package dev.samsa;

// The README's list of imports (its Quick start section), compiled here (and in every compatibility project that runs this file).
import dev.samsa.KafkaCluster;                 // the cluster, its builder, brokers, partitions, groups, faults
import dev.samsa.Api;                          // faults().failNext(Api.PRODUCE, ...)
import dev.samsa.KafkaError;
import dev.samsa.Security;                     // listeners, SASL users, TLS: builder().security(...)
import dev.samsa.time.ClusterClock;            // ClusterClock.manual(start), clock().advance(d)
import dev.samsa.When;                         // events().on(When.leaderChanged(topic, p), action)
import dev.samsa.event.*;                      // the timeline's events: events().events(LeaderChanged.class)
import dev.samsa.junit.EmbeddedKafkaCluster;   // the JUnit 5 extension and its settings
import dev.samsa.junit.EmbeddedKafkaCluster.ClockType;
import dev.samsa.junit.EmbeddedKafkaCluster.Lifecycle;
import dev.samsa.junit.Topic;
import dev.samsa.junit.BootstrapServers;
import dev.samsa.junit.SamsaExtension;
import static dev.samsa.junit.SamsaAssertions.assertThat;   // beside AssertJ's own assertThat
import static dev.samsa.junit.SamsaConditions.*;           // awaitCluster(), isrSize(...), groupStable(...)

import static org.assertj.core.api.Assertions.assertThat;

import dev.samsa.event.AuthenticationFailed;
import dev.samsa.event.LeaderChanged;
import java.io.IOException;
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
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/**
 * The Java examples of the README outside its JUnit and Spring sections (which have their own tests) and of the
 * security, faults and history guides, run as written, and the README's list of imports, compiled; the first test
 * fails when an example there and this file (or, for the Quick Start, {@link QuickStartTest}; for the data-loss page,
 * {@code TimelineHtmlTest}) drift apart.
 */
class ReadmeTest {

    /** Samsa's own folder; the compatibility projects (src/it) compile this file from there and run it elsewhere. */
    private static final Path PROJECT = Path.of(System.getProperty("samsa.project.dir", "."));
    /** The README's sections these tests hold, each up to the next "## " heading. */
    private static final List<String> README_SECTIONS = List.of("## Quick start", "## Failures, replication and time",
            "## The history and the timeline", "## Security: TLS and SASL");
    /** Guides whose every Java example is here. */
    private static final List<String> GUIDES = List.of("docs/security.md", "docs/faults-and-time.md",
            "docs/history-and-timeline.md");

    @Test
    void everyExampleOfTheseSectionsIsInThisFile() throws IOException {
        String readme = Files.readString(PROJECT.resolve("README.md"));
        String source = normalize(Files.readString(PROJECT.resolve("src/test/java/dev/samsa/ReadmeTest.java"))) + "\n"
                + normalize(Files.readString(PROJECT.resolve("src/test/java/dev/samsa/QuickStartTest.java"))) + "\n"
                + normalize(Files.readString(PROJECT.resolve("src/test/java/dev/samsa/event/TimelineHtmlTest.java")));
        List<String> examples = new ArrayList<>();
        for (String section : README_SECTIONS) {
            int start = readme.indexOf(section);
            assertThat(start).as("README section %s", section).isNotNegative();
            int end = readme.indexOf("\n## ", start + section.length());
            examples.addAll(javaBlocks(readme.substring(start, end < 0 ? readme.length() : end)));
        }
        for (String guide : GUIDES) {
            examples.addAll(javaBlocks(Files.readString(PROJECT.resolve(guide))));
        }
        assertThat(examples).hasSize(10).allSatisfy(example -> assertThat(source).contains(example));
    }

    private static List<String> javaBlocks(String markdown) {
        List<String> blocks = new ArrayList<>();
        Matcher block = Pattern.compile("```java\n(.*?)```", Pattern.DOTALL).matcher(markdown);
        while (block.find()) {
            blocks.add(normalize(block.group(1)));
        }
        return blocks;
    }

    private static String normalize(String code) {
        return code.lines().map(String::strip).filter(line -> !line.isEmpty()).collect(Collectors.joining("\n"));
    }

    @Test
    void historyAndTimeline() throws Exception {
try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).topic("payments", 1, 3).start()) {
    try (var producer = new KafkaProducer<String, String>(cluster.producerConfig())) {   // acks=all
        producer.send(new ProducerRecord<>("payments", "id-1", "paid")).get();
    }
    cluster.events().on(When.leaderChanged("payments", 0), () -> System.out.println("a new leader"));
    cluster.broker(cluster.partition("payments", 0).leader()).crash();
    assertThat(cluster.history().lost()).isEmpty();       // every acknowledged record is still there
    System.out.println(cluster.events().events(LeaderChanged.class));
}
    }

    @Test
    void security() throws Exception {
try (KafkaCluster cluster = KafkaCluster.builder()
        .security(Security.listeners(Security.Protocol.SASL_SSL, Security.Protocol.PLAINTEXT)
                .user("alice", "alice-secret"))        // PLAIN and SCRAM credentials for alice
        .topic("orders", 1, 1)
        .start()) {
    try (var producer = new KafkaProducer<String, String>(cluster.producerConfig("alice"))) {   // SASL_SSL, SCRAM-SHA-512
        producer.send(new ProducerRecord<>("orders", "id-1", "created")).get();
    }
    try (var admin = Admin.create(cluster.adminConfig())) {   // no user: the PLAINTEXT listener
        System.out.println(admin.describeCluster().nodes().get());
    }
}
    }

    @Test
    void oauthBearerStoresAndSecurityFaults() throws Exception {
try (KafkaCluster cluster = KafkaCluster.builder()
        .security(Security.listeners(Security.Protocol.SASL_SSL)
                .mechanisms(Security.Mechanism.OAUTHBEARER)      // Kafka's unsecured JWS tokens
                .clientStores(Security.StoreType.PKCS12))        // the truststore as a PKCS12 file
        .topic("orders", 1, 1)
        .start()) {
    try (var producer = new KafkaProducer<String, String>(cluster.producerConfig("alice"))) {   // a token with sub=alice
        producer.send(new ProducerRecord<>("orders", "id-1", "created")).get();
        cluster.faults().expireSaslSessions(1);   // its next request closes the connection; the producer reconnects
        cluster.faults().rotateCertificate(1);    // new connections get a new certificate from the same CA
        producer.send(new ProducerRecord<>("orders", "id-1", "paid")).get();
    }
    System.out.println(cluster.events().events(AuthenticationFailed.class));   // none: every login succeeded
}
    }

    @Test
    void failuresReplicationAndTime() {
try (KafkaCluster cluster = KafkaCluster.builder()
        .brokers(3)
        .clock(ClusterClock.manual(Instant.parse("2026-01-01T00:00:00Z")))
        .seed(42)
        .topic("payments", 1, 3)
        .start()) {
    int leader = cluster.partition("payments", 0).leader();
    int follower = cluster.partition("payments", 0).replicas().stream().filter(b -> b != leader).findFirst().orElseThrow();
    cluster.faults().pauseReplication("payments", 0, follower);
    cluster.clock().advance(Duration.ofMillis(30_001));   // past replica.lag.time.max.ms
    assertThat(cluster.partition("payments", 0).isr()).doesNotContain(follower);

    cluster.broker(leader).crash();                       // in-memory state lost, page cache kept
    assertThat(cluster.partition("payments", 0).leader()).isNotEqualTo(leader);
    cluster.broker(leader).restart();                     // same port; logs recovered; rejoins as follower
    System.out.println(cluster.events());                 // the timeline, one event per line
}
    }

    @Test
    void compaction() throws Exception {
try (KafkaCluster cluster = KafkaCluster.builder()
        .topic("prices", 1, 1, Map.of("cleanup.policy", "compact"))
        .start()) {
    try (var producer = new KafkaProducer<String, String>(cluster.producerConfig())) {
        for (int i = 0; i < 100; i++) {
            producer.send(new ProducerRecord<>("prices", "sku-" + i % 10, "price-" + i)).get();
        }
    }
    cluster.rollSegments("prices");          // close the active segment, which is never cleaned
    long removed = cluster.compact("prices"); // a full pass on every replica now, ignoring ratio and lags
    assertThat(removed).isEqualTo(90);       // the latest of each of the 10 keys stays, at its original offset
}
    }
}
