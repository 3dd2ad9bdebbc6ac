package dev.samsa.junit;

import static org.assertj.core.api.Assertions.assertThat;

import org.assertj.core.api.InstanceOfAssertFactories;

import dev.samsa.KafkaCluster;
import dev.samsa.junit.EmbeddedKafkaCluster.ClockType;
import dev.samsa.junit.EmbeddedKafkaCluster.Lifecycle;
import dev.samsa.junit.Fixtures.Fixture;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.platform.engine.reporting.ReportEntry;
import org.junit.platform.testkit.engine.EngineExecutionResults;

/** A failing test gets the cluster's timeline of its own window, on standard output and as a report entry. */
class FailureTimelineTest {

    @Fixture
    @EmbeddedKafkaCluster(clock = ClockType.MANUAL, clockStart = "2030-01-01T00:00:00Z")
    static class Failing {
        @BeforeAll
        static void createdBeforeTheTests(KafkaCluster cluster) {
            cluster.createTopic("before-the-tests", 1, 1);
        }

        @Test
        void fails(KafkaCluster cluster) {
            // 90 s of cluster time pass, so the event reads at 00:01:30.
            cluster.clock().advance(Duration.ofSeconds(90));
            cluster.createTopic("during-the-failing-test", 2, 1);
            throw new AssertionError("the order never arrived");
        }

        @Test
        void passes(KafkaCluster cluster) {
            cluster.createTopic("during-the-passing-test", 1, 1);
        }
    }

    @Test
    void aFailingTestPublishesTheEventsOfItsOwnWindowAndKeepsItsFailure() {
        // This class runs its tests one at a time, so borrowing System.out for the run sees only the fixture's output.
        PrintStream original = System.out;
        ByteArrayOutputStream stdout = new ByteArrayOutputStream();
        EngineExecutionResults results;
        try {
            System.setOut(new PrintStream(stdout, true, StandardCharsets.UTF_8));
            results = Fixtures.run(Failing.class);
        } finally {
            System.setOut(original);
        }

        results.testEvents().assertStatistics(stats -> stats.succeeded(1).failed(1));
        assertThat(Fixtures.failures(results.testEvents())).singleElement(InstanceOfAssertFactories.THROWABLE)
                .isInstanceOf(AssertionError.class).hasMessage("the order never arrived");
        String timeline = reportEntry(results, "fails(KafkaCluster)", EmbeddedKafkaCluster.TIMELINE_REPORT_KEY);
        assertThat(timeline)
                .startsWith("Samsa cluster timeline during fails(KafkaCluster) (seed ")
                .contains("cluster time", "event", "details")
                .containsPattern("2030-01-01T00:01:30Z +TopicCreated +during-the-failing-test partitions=2")
                .doesNotContain("before-the-tests", "during-the-passing-test");
        assertThat(stdout.toString(StandardCharsets.UTF_8)).as("standard output").contains(timeline);
        assertThat(reportEntries(results, "passes(KafkaCluster)")).as("report entries of the passing test").isEmpty();
        java.nio.file.Path html = java.nio.file.Path.of("target", "samsa-timelines",
                "dev.samsa.junit.FailureTimelineTest_Failing.fails_KafkaCluster_.html").toAbsolutePath();
        assertThat(stdout.toString(StandardCharsets.UTF_8)).contains("Samsa HTML timeline: " + html);
        String seed = timeline.replaceFirst("(?s)^Samsa cluster timeline during fails\\(KafkaCluster\\) \\(seed (-?\\d+),.*", "$1");
        assertThat(html).content().contains("<svg", "during-the-failing-test")
                .as("titled after the test's class and method, with the seed")
                .contains("<h1>Samsa timeline: dev.samsa.junit.FailureTimelineTest$Failing.fails() (seed " + seed + ")</h1>");
    }

    @Fixture
    @EmbeddedKafkaCluster(lifecycle = Lifecycle.PER_METHOD)
    static class FailingInBeforeEach {
        @BeforeEach
        void beforeEach(KafkaCluster cluster) {
            cluster.createTopic("created-in-before-each", 1, 1);
            throw new IllegalStateException("setup broke");
        }

        @Test
        void test() {
        }
    }

    @Test
    void aFailingBeforeEachOfAPerMethodClusterShowsTheWholeLifeOfThatCluster() {
        EngineExecutionResults results = Fixtures.run(FailingInBeforeEach.class);

        assertThat(Fixtures.failures(results.testEvents())).singleElement(InstanceOfAssertFactories.THROWABLE)
                .isInstanceOf(IllegalStateException.class).hasMessage("setup broke");
        assertThat(reportEntry(results, "test()", EmbeddedKafkaCluster.TIMELINE_REPORT_KEY))
                .contains("ClusterStarted", "BrokerStarted", "TopicCreated", "created-in-before-each");
    }

    @Fixture
    @EmbeddedKafkaCluster(topics = @Topic(name = "orders"))
    static class FailingAfterAHighWatermarkMove {
        @BeforeAll
        static void oneRecordBeforeTheTests(KafkaCluster cluster) throws Exception {
            send(cluster, "before");
        }

        @Test
        void fails(KafkaCluster cluster) throws Exception {
            // The timeline folds this move into the "hw=1" entry recorded before the test: same place, new content.
            send(cluster, "during");
            throw new AssertionError("failed after the high watermark moved");
        }

        private static void send(KafkaCluster cluster, String value) throws Exception {
            try (var producer = new KafkaProducer<String, String>(cluster.producerConfig())) {
                producer.send(new ProducerRecord<>("orders", value)).get();
            }
        }
    }

    @Test
    void anEventTheTimelineRewroteInPlaceDuringTheTestIsPartOfTheTestsWindow() {
        EngineExecutionResults results = Fixtures.run(FailingAfterAHighWatermarkMove.class);

        assertThat(reportEntry(results, "fails(KafkaCluster)", EmbeddedKafkaCluster.TIMELINE_REPORT_KEY))
                .contains("HighWatermark", "orders-0 hw=2")
                .doesNotContain("TopicCreated");
    }

    @Fixture
    static class FailingOnASmallTimeline {
        @RegisterExtension
        static final SamsaExtension kafka = SamsaExtension.builder()
                .configure(builder -> builder.timelineCapacity(8)).build();

        @BeforeAll
        static void fillTheTimelineBeforeTheTests(KafkaCluster cluster) {
            // More events than the timeline keeps, so it has dropped some before the first test starts.
            for (int i = 0; i < 12; i++) {
                cluster.createTopic("before-" + i, 1, 1);
            }
        }

        @Test
        void failsAfterTwoEvents(KafkaCluster cluster) {
            cluster.createTopic("one-during-the-test", 1, 1);
            cluster.createTopic("two-during-the-test", 1, 1);
            throw new AssertionError("failed after two events");
        }

        @Test
        void failsAfterMoreEventsThanTheTimelineKeeps(KafkaCluster cluster) {
            for (int i = 0; i < 12; i++) {
                cluster.createTopic("many-" + i, 1, 1);
            }
            throw new AssertionError("failed after many events");
        }
    }

    @Test
    void theWindowOfATestHoldsWhenTheTimelineDropsOldEvents() {
        EngineExecutionResults results = Fixtures.run(FailingOnASmallTimeline.class);

        // Dropped events before the test do not shift where its window starts: a start counted among the kept events
        // (8, the full timeline) would show the last event only.
        assertThat(reportEntry(results, "failsAfterTwoEvents(KafkaCluster)", EmbeddedKafkaCluster.TIMELINE_REPORT_KEY))
                .containsPattern("TopicCreated +one-during-the-test ")
                .containsPattern("TopicCreated +two-during-the-test ")
                .doesNotContain("before-", "many-", "dropped");
        // A test that outran the timeline shows what is left of it and says how much of it went.
        assertThat(reportEntry(results, "failsAfterMoreEventsThanTheTimelineKeeps(KafkaCluster)",
                EmbeddedKafkaCluster.TIMELINE_REPORT_KEY))
                .containsPattern("\\.\\.\\. [1-9][0-9]* earlier events of this test dropped \\(the timeline keeps the last 8\\)")
                .containsPattern("TopicCreated +many-11 ")
                .doesNotContain("many-0 ", "before-", "during-the-test");
    }

    private static String reportEntry(EngineExecutionResults results, String testName, String key) {
        return reportEntries(results, testName).stream()
                .filter(entry -> entry.getKeyValuePairs().containsKey(key))
                .map(entry -> entry.getKeyValuePairs().get(key))
                .findFirst()
                .orElseThrow(() -> new AssertionError("No report entry " + key + " for " + testName + "; entries: "
                        + reportEntries(results, testName)));
    }

    private static List<ReportEntry> reportEntries(EngineExecutionResults results, String testName) {
        return results.allEvents().reportingEntryPublished().stream()
                .filter(e -> e.getTestDescriptor().getDisplayName().equals(testName))
                .map(e -> e.getRequiredPayload(ReportEntry.class))
                .toList();
    }
}
