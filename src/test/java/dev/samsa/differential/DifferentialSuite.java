package dev.samsa.differential;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;

/**
 * The differential suite (DESIGN.md, "Fidelity"): every scenario of a catalogue runs once on Samsa and once on a
 * real Kafka {@value KafkaUnderTest#VERSION} in a JVM of its own, each started once for the class, and what a user can
 * observe must be the same on both, except what {@link AllowedDifferences} lists with its reason. Every difference
 * found, allowed or not, is printed and written to {@code target/differential/differences.txt}.
 *
 * <p>{@code -Dsamsa.differential.scenarios=REGEX} runs the scenarios whose names match; {@code
 * -Dsamsa.differential.slow=true} adds the slow ones (several seconds of real timers each).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class DifferentialSuite {

    /**
     * Broker configs both targets start with: short background intervals so that retention, compaction and
     * transaction expiry happen within a scenario. Samsa's own test defaults are given to Kafka by {@link KafkaUnderTest}.
     */
    static final Map<String, String> BROKER_CONFIGS = Map.of(
            "log.retention.check.interval.ms", "500",
            "log.cleaner.backoff.ms", "500",
            "transaction.abort.timed.out.transaction.cleanup.interval.ms", "200",
            // A KIP-848 member learns of a new assignment from its next heartbeat: 1 s instead of 5 keeps joins short.
            "group.consumer.heartbeat.interval.ms", "1000");

    /** What Kafka needs besides to accept {@link #BROKER_CONFIGS} (Samsa has no lower bound on the interval). */
    static final Map<String, String> KAFKA_ONLY_CONFIGS = Map.of("group.consumer.min.heartbeat.interval.ms", "1000");

    private static final AllowedDifferences ALLOWED = AllowedDifferences.load();
    private ClusterUnderTest samsa;
    private ClusterUnderTest kafka;
    private final Map<String, Map<String, Observation>> seen = new ConcurrentHashMap<>();
    private final List<String> report = new ArrayList<>();

    /** How many brokers both targets have. */
    abstract int brokers();

    abstract List<Scenario> catalogue();

    /** Prefix of this suite's files under target/differential. */
    abstract String reportName();

    @BeforeAll
    void startTargets() {
        // Kafka's two JVM starts take seconds: Samsa starts meanwhile.
        CompletableFuture<ClusterUnderTest> real = CompletableFuture.supplyAsync(() -> {
            Map<String, String> configs = new java.util.HashMap<>(BROKER_CONFIGS);
            configs.putAll(KAFKA_ONLY_CONFIGS);
            return new KafkaUnderTest(brokers(), configs);
        });
        samsa = new SamsaUnderTest(brokers(), BROKER_CONFIGS);
        kafka = real.join();
    }

    @AfterAll
    void stopTargets() throws IOException {
        try {
            if (kafka != null) {
                kafka.close();
            }
        } finally {
            if (samsa != null) {
                samsa.close();
            }
        }
        Path report = Path.of("target/differential/" + reportName() + "-differences.txt");
        Files.createDirectories(report.getParent());
        Files.write(report, this.report);
        List<String> observed = new ArrayList<>();
        new java.util.TreeMap<>(seen).forEach((scenario, byTarget) -> new java.util.TreeMap<>(byTarget).forEach((target, o) -> {
            observed.add(scenario + " on " + target + ":");
            observed.add(o.toString());
        }));
        Files.write(report.resolveSibling(reportName() + "-observations.txt"), observed);
        this.report.forEach(System.out::println);
    }

    @TestFactory
    Stream<DynamicNode> scenarios() {
        Pattern only = Pattern.compile(System.getProperty("samsa.differential.scenarios", ".*"));
        boolean slow = Boolean.getBoolean("samsa.differential.slow");
        return catalogue().stream()
                .filter(s -> only.matcher(s.name()).matches())
                .filter(s -> slow || !s.slow())
                .map(s -> DynamicContainer.dynamicContainer(s.name(), Stream.of(
                        DynamicTest.dynamicTest("on samsa", () -> run(s, samsa)),
                        DynamicTest.dynamicTest("on " + kafka.name(), () -> run(s, kafka)),
                        DynamicTest.dynamicTest("same as kafka", () -> compare(s)))));
    }

    private void run(Scenario scenario, ClusterUnderTest target) throws Exception {
        try (ScenarioContext context = new ScenarioContext(scenario, target)) {
            scenario.body().run(context);
            seen.computeIfAbsent(scenario.name(), n -> new ConcurrentHashMap<>()).put(target.name(), context.obs());
        }
    }

    private void compare(Scenario scenario) {
        Map<String, Observation> both = seen.getOrDefault(scenario.name(), Map.of());
        assumeTrue(both.containsKey(samsa.name()) && both.containsKey(kafka.name()),
                "The scenario did not run to the end on both targets");
        Observation s = both.get(samsa.name());
        Observation k = both.get(kafka.name());
        List<String> unexpected = new ArrayList<>();
        TreeSet<String> keys = new TreeSet<>(s.values().keySet());
        keys.addAll(k.values().keySet());
        for (String key : keys) {
            String sv = s.values().get(key);
            String kv = k.values().get(key);
            if (!java.util.Objects.equals(sv, kv)) {
                note(scenario, key, "samsa: " + sv + " | kafka: " + kv, unexpected);
            }
        }
        TreeSet<String> ratioKeys = new TreeSet<>(s.ratios().keySet());
        ratioKeys.addAll(k.ratios().keySet());
        for (String key : ratioKeys) {
            Double sr = s.ratios().get(key);
            Double kr = k.ratios().get(key);
            if (sr == null || kr == null || Math.abs(sr - kr) > Observation.RATIO_TOLERANCE * Math.abs(kr)) {
                note(scenario, key, String.format("samsa: %s | kafka: %s (ratio to the configured time)",
                        sr == null ? null : String.format("%.3f", sr), kr == null ? null : String.format("%.3f", kr)),
                        unexpected);
            }
        }
        if (!unexpected.isEmpty()) {
            fail("Samsa and Kafka " + KafkaUnderTest.VERSION + " differ in " + scenario.name() + ":\n  "
                    + String.join("\n  ", unexpected) + "\nsamsa saw:\n" + s + "kafka saw:\n" + k);
        }
    }

    private void note(Scenario scenario, String key, String values, List<String> unexpected) {
        Optional<AllowedDifferences.Entry> allowed = ALLOWED.find(scenario.name(), key);
        String line = scenario.name() + " " + key + ": " + values;
        synchronized (report) {
            report.add((allowed.isPresent() ? "allowed    " : "UNEXPECTED ") + line
                    + allowed.map(e -> " (" + e.reason() + ")").orElse(""));
        }
        if (allowed.isEmpty()) {
            unexpected.add(line);
        }
    }
}
