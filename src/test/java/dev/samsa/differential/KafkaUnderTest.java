package dev.samsa.differential;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.common.Uuid;

/**
 * A real Apache Kafka KRaft cluster as a differential target, each node in a JVM of its own: one node that is broker and
 * controller (combined mode) for one broker; for more, a controller of its own (node id {@value #CONTROLLER_ID}) beside
 * broker-only nodes 1..n, as Samsa's controller outlives any broker. On the jars the build resolved from Maven Central into {@link #LIBS_PROPERTY}'s directory (the
 * differential-kafka profile in pom.xml), so Kafka's kafka-clients never meets Samsa's. Configured with Samsa's
 * test-friendly defaults (DESIGN.md) plus the suite's shared broker configs.
 *
 * <p>Missing jars are a failure, not a skip: a suite that silently compared nothing would pass in CI.
 */
final class KafkaUnderTest implements ClusterUnderTest {

    static final String VERSION = "4.4.0";
    static final String LIBS_PROPERTY = "samsa.differential.kafka.libs";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
    static final int CONTROLLER_ID = 100;

    /** What Samsa configures for tests by itself (BrokerConfigs.TEST_DEFAULTS and the replication factors it derives). */
    static Map<String, String> samsaTestDefaults(int brokers) {
        String rf = Integer.toString(Math.min(3, brokers));
        return Map.of(
                "group.initial.rebalance.delay.ms", "0",
                "offsets.topic.num.partitions", "5",
                "offsets.topic.replication.factor", rf,
                "transaction.state.log.num.partitions", "5",
                "transaction.state.log.replication.factor", rf,
                "transaction.state.log.min.isr", Integer.toString(Math.min(2, brokers)));
    }

    private final Path libs;
    private final Path workDir;
    /** The brokers, by id from 1; for more than one broker, the controller comes after them. */
    private final List<Node> nodes = new ArrayList<>();
    private final int brokers;
    private final java.util.Set<Integer> down = new java.util.HashSet<>();

    /** {@code port} is the broker listener's, or 0 for the controller. */
    private record Node(int id, int port, int controllerPort, Path config, Path log) {
    }

    private final Process[] processes;

    KafkaUnderTest(int brokers, Map<String, String> brokerConfigs) {
        this.brokers = brokers;
        this.libs = Path.of(System.getProperty(LIBS_PROPERTY, "target/differential/kafka-" + VERSION + "/libs"));
        if (!Files.isRegularFile(libs.resolve("kafka_2.13-" + VERSION + ".jar"))) {
            throw new IllegalStateException("Kafka " + VERSION + "'s jars are not in " + libs.toAbsolutePath()
                    + "; the build's differential-kafka profile copies them there from Maven Central (mvn "
                    + "generate-test-resources does it), or point -D" + LIBS_PROPERTY + " at a directory that has them");
        }
        try {
            Files.createDirectories(Path.of("target/differential"));
            this.workDir = Files.createTempDirectory(Path.of("target/differential"), "kafka-run-").toAbsolutePath();
            this.processes = new Process[brokers == 1 ? 1 : brokers + 1];
            for (int id = 1; id <= brokers; id++) {
                nodes.add(new Node(id, freePort(), brokers == 1 ? freePort() : 0, workDir.resolve("node-" + id + ".properties"),
                        workDir.resolve("node-" + id + ".log")));
            }
            if (brokers > 1) {
                nodes.add(new Node(CONTROLLER_ID, 0, freePort(), workDir.resolve("controller.properties"),
                        workDir.resolve("controller.log")));
            }
            String voters = nodes.stream().filter(n -> n.controllerPort() != 0)
                    .map(n -> n.id() + "@127.0.0.1:" + n.controllerPort()).collect(Collectors.joining(","));
            Map<String, String> shared = new TreeMap<>(samsaTestDefaults(brokers));
            shared.putAll(brokerConfigs);
            String clusterId = Uuid.randomUuid().toString();
            for (Node node : nodes) {
                Properties p = new Properties();
                p.putAll(shared);
                boolean broker = node.port() != 0;
                boolean controller = node.controllerPort() != 0;
                p.put("process.roles", broker && controller ? "broker,controller" : broker ? "broker" : "controller");
                p.put("node.id", Integer.toString(node.id()));
                p.put("controller.quorum.voters", voters);
                List<String> listeners = new ArrayList<>();
                if (broker) {
                    listeners.add("PLAINTEXT://127.0.0.1:" + node.port());
                    p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + node.port());
                }
                if (controller) {
                    listeners.add("CONTROLLER://127.0.0.1:" + node.controllerPort());
                }
                p.put("listeners", String.join(",", listeners));
                p.put("controller.listener.names", "CONTROLLER");
                p.put("listener.security.protocol.map", "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT");
                p.put("log.dirs", workDir.resolve("data-" + node.id()).toString());
                try (var out = Files.newBufferedWriter(node.config())) {
                    p.store(out, "Kafka " + VERSION + " node " + node.id() + " for the differential suite");
                }
                run(List.of("kafka.tools.StorageTool", "format", "-t", clusterId, "-c", node.config().toString()),
                        workDir.resolve("format-" + node.id() + ".log"));
            }
            for (Node node : nodes) {
                launch(node);
            }
            awaitBrokers(brokers);
        } catch (IOException e) {
            close();
            throw new UncheckedIOException("Cannot start Kafka " + VERSION + " in " + workDir(), e);
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        }
    }

    private Path workDir() {
        return workDir;
    }

    @Override
    public String name() {
        return "kafka-" + VERSION;
    }

    @Override
    public String bootstrapServers() {
        return nodes.stream().filter(n -> n.port() != 0).map(n -> "127.0.0.1:" + n.port()).collect(Collectors.joining(","));
    }

    @Override
    public int brokers() {
        return brokers;
    }

    @Override
    public void stopBroker(int id) {
        Process p = processes[id - 1];
        down.add(id);
        p.destroy();
        awaitExit(p, Duration.ofSeconds(60));
    }

    @Override
    public void killBroker(int id) {
        Process p = processes[id - 1];
        down.add(id);
        p.destroyForcibly();
        awaitExit(p, Duration.ofSeconds(30));
    }

    @Override
    public void restartBroker(int id) {
        try {
            launch(nodes.get(id - 1));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        down.remove(id);
        awaitBrokers(brokers - down.size());
    }

    @Override
    public void close() {
        if (processes == null) {
            return;
        }
        for (Process p : processes) {
            if (p != null && p.isAlive()) {
                p.destroyForcibly();
                awaitExit(p, Duration.ofSeconds(30));
            }
        }
        for (Node node : nodes) {
            deleteRecursively(workDir.resolve("data-" + node.id()));
        }
    }

    private void launch(Node node) throws IOException {
        List<String> command = javaCommand(List.of("-Xms256m", "-Xmx1g", "-XX:+UseSerialGC",
                "-Dlog4j2.level=ERROR", "kafka.Kafka", node.config().toString()));
        Process p = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(node.log().toFile())).start();
        processes[nodes.indexOf(node)] = p;
        Runtime.getRuntime().addShutdownHook(new Thread(p::destroyForcibly, "kafka-" + node.id() + "-reaper"));
    }

    private List<String> javaCommand(List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-cp");
        command.add(libs.toAbsolutePath() + "/*");
        command.addAll(args);
        return command;
    }

    private void run(List<String> args, Path log) throws IOException {
        Process p = new ProcessBuilder(javaCommand(args)).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        awaitExit(p, Duration.ofSeconds(60));
        if (p.exitValue() != 0) {
            throw new IllegalStateException("Kafka's " + args.get(0) + " exited with " + p.exitValue() + ": "
                    + tail(log));
        }
    }

    private void awaitBrokers(int count) {
        Map<String, Object> config = Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 2000, AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 2000);
        try (Admin admin = Admin.create(config)) {
            await().atMost(START_TIMEOUT).pollInterval(Duration.ofMillis(200))
                    .alias("Kafka " + VERSION + " shows " + count + " brokers (log: " + nodes.get(0).log() + ")").until(() -> {
                        for (Node node : nodes) {
                            Process p = processes[nodes.indexOf(node)];
                            if (!down.contains(node.id()) && (p == null || !p.isAlive())) {
                                throw new IllegalStateException("Kafka node " + node.id() + " is not running: " + tail(node.log()));
                            }
                        }
                        try {
                            return admin.describeCluster(new DescribeClusterOptions().timeoutMs(2000)).nodes()
                                    .get(3, TimeUnit.SECONDS).size() == count;
                        } catch (Exception notUpYet) {
                            return false;
                        }
                    });
        }
    }

    private static void awaitExit(Process p, Duration timeout) {
        try {
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                p.waitFor(30, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted waiting for a Kafka process to exit", e);
        }
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(no log at " + log + ")";
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }


    private static void deleteRecursively(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            // Left for mvn clean.
        }
    }
}
