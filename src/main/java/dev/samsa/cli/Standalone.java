package dev.samsa.cli;

import dev.samsa.KafkaCluster;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;

/**
 * Starts a cluster for clients in any language:
 * {@code java -jar samsa-standalone.jar --brokers N --port P [--config key=value]... [--topic name:partitions:rf]...
 * [--feature transaction.version=N]}. A feature is set as {@code kafka-storage format --feature} sets it on a real
 * cluster; transaction.version (0, 1 or 2, default 2) is the only one that can be chosen.
 * Prints exactly one line {@code bootstrap.servers=127.0.0.1:P1,...} on stdout when ready, then runs until SIGTERM
 * or Ctrl-C and closes cleanly. Bad arguments print one line naming the problem and the usage on stderr and exit
 * with status 2; {@code --help} prints the usage on stdout and exits with 0.
 */
public final class Standalone {

    static final String USAGE = "Usage: java -jar samsa-standalone.jar [--brokers N] [--port P] [--seed N]"
            + " [--config key=value]... [--topic name:partitions:replicationFactor]... [--feature transaction.version=N]";

    private Standalone() {
    }

    public static void main(String[] args) throws InterruptedException {
        // This process owns its logging: keep chronicle's start-up chatter out of the way of the ready line.
        if (System.getProperty("org.slf4j.simpleLogger.log.net.openhft") == null) {
            System.setProperty("org.slf4j.simpleLogger.log.net.openhft", "warn");
        }
        if (Arrays.asList(args).contains("--help") || Arrays.asList(args).contains("-h")) {
            System.out.println("Samsa: an embedded Kafka cluster for tests.");
            System.out.println(USAGE);
            return;
        }
        KafkaCluster cluster;
        try {
            cluster = parse(args).start();
        } catch (IllegalArgumentException e) {
            // A bad option, topic or broker config: one line naming it, no stack trace.
            System.err.println(e.getMessage());
            System.err.println(USAGE);
            System.exit(2);
            return;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            cluster.close();
            stopped.countDown();
        }, "samsa-shutdown"));
        PrintStream out = System.out;
        out.println("bootstrap.servers=" + cluster.bootstrapServers());
        out.flush();
        stopped.await();
    }

    /** @throws IllegalArgumentException naming the bad argument */
    static KafkaCluster.Builder parse(String[] args) {
        KafkaCluster.Builder builder = KafkaCluster.builder();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("Missing value after " + arg);
            }
            String value = args[++i];
            switch (arg) {
                case "--brokers" -> builder.brokers(parseInt(arg, value));
                case "--port" -> builder.port(parseInt(arg, value));
                case "--seed" -> builder.seed(parseLong(arg, value));
                case "--config" -> {
                    int eq = value.indexOf('=');
                    if (eq <= 0) {
                        throw new IllegalArgumentException("--config expects key=value, got '" + value + "'");
                    }
                    builder.brokerConfig(value.substring(0, eq), value.substring(eq + 1));
                }
                case "--topic" -> {
                    String[] parts = value.split(":");
                    if (parts.length != 3) {
                        throw new IllegalArgumentException("--topic expects name:partitions:replicationFactor, got '" + value + "'");
                    }
                    builder.topic(parts[0], parseInt(arg, parts[1]), parseInt(arg, parts[2]));
                }
                case "--feature" -> {
                    int eq = value.indexOf('=');
                    if (eq <= 0 || !value.substring(0, eq).equals("transaction.version")) {
                        throw new IllegalArgumentException("--feature expects transaction.version=N, got '" + value + "'");
                    }
                    builder.transactionVersion(parseInt(arg, value.substring(eq + 1)));
                }
                default -> throw new IllegalArgumentException("Unknown option " + arg);
            }
        }
        return builder;
    }

    private static long parseLong(String option, String value) {
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " expects a number, got '" + value + "'");
        }
    }

    private static int parseInt(String option, String value) {
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " expects a number, got '" + value + "'");
        }
    }
}
