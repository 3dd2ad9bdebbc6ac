package dev.samsa.bench;

import dev.samsa.Broker;
import dev.samsa.KafkaCluster;
import dev.samsa.RawConnection;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.ApiVersionsRequest;

/**
 * What a new client connection costs before its first answer: a client opens one per broker it meets (bootstrap,
 * group coordinator, partition leaders), so each group join or first send pays it. Not a test: surefire excludes
 * {@code **}{@code /bench/**}.
 *
 * <pre>
 * BENCH=NewConnectionBenchmark bench/run.sh [connections warmups admins]   (defaults 2000 500 100)
 * </pre>
 *
 * <p>On one 3-broker cluster: {@code connections} times, a plain socket's connect, one ApiVersions request and its
 * answer, then close (after {@code warmups} uncounted); then {@code admins} times an {@code Admin.create},
 * {@code describeCluster().nodes().get()} and close, as a client's first exchange. Prints min/median/p90/max of each.
 */
public final class NewConnectionBenchmark {

    private NewConnectionBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("org.slf4j.simpleLogger.log.dev.samsa", "warn");
        System.setProperty("org.slf4j.simpleLogger.log.org.apache.kafka", "warn");
        int connections = NanoSamples.arg(args, 0, 2000);
        int warmups = NanoSamples.arg(args, 1, 500);
        int admins = NanoSamples.arg(args, 2, 100);
        System.out.printf(Locale.ROOT, "JVM %s, %d CPUs, %d connections after %d warm-ups, %d admins%n",
                Runtime.version(), Runtime.getRuntime().availableProcessors(), connections, warmups, admins);
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(1).start()) {
            Broker broker = cluster.brokers().get(0);
            for (int i = 0; i < warmups; i++) {
                apiVersionsOnANewConnection(broker);
            }
            long[] raw = new long[connections];
            for (int i = 0; i < connections; i++) {
                long begin = System.nanoTime();
                apiVersionsOnANewConnection(broker);
                raw[i] = System.nanoTime() - begin;
            }
            System.out.printf(Locale.ROOT, "connect + ApiVersions + close: %s%n", NanoSamples.summary(raw, 3));

            Map<String, Object> config = cluster.adminConfig();
            for (int i = 0; i < Math.max(5, admins / 10); i++) {
                describeCluster(config);
            }
            long[] admin = new long[admins];
            for (int i = 0; i < admins; i++) {
                long begin = System.nanoTime();
                describeCluster(config);
                admin[i] = System.nanoTime() - begin;
            }
            System.out.printf(Locale.ROOT, "Admin.create + describeCluster + close: %s%n", NanoSamples.summary(admin, 3));
        }
    }

    private static void apiVersionsOnANewConnection(Broker broker) throws Exception {
        try (RawConnection connection = RawConnection.connect(broker)) {
            connection.send(new ApiVersionsRequest.Builder().build(ApiKeys.API_VERSIONS.latestVersion()));
        }
    }

    private static void describeCluster(Map<String, Object> config) throws Exception {
        try (Admin admin = Admin.create(config)) {
            admin.describeCluster().nodes().get();
        }
    }
}
