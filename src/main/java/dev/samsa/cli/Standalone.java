package dev.samsa.cli;

import dev.samsa.KafkaCluster;
import dev.samsa.Security;
import dev.samsa.cli.control.ControlEndpoint;
import dev.samsa.time.ClusterClock;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * Starts a cluster for clients in any language:
 * {@code java -jar samsa-standalone.jar --brokers N --port P [--config key=value]... [--topic name:partitions:rf]...
 * [--feature transaction.version=N]}. A feature is set as {@code kafka-storage format --feature} sets it on a real
 * cluster; transaction.version (0, 1 or 2, default 2) is the only one that can be chosen.
 * Prints the line {@code bootstrap.servers=127.0.0.1:P1,...} on stdout when ready, then runs until SIGTERM
 * or Ctrl-C and closes cleanly. Bad arguments print one line naming the problem and the usage on stderr and exit
 * with status 2; {@code --help} prints the usage on stdout and exits with 0.
 *
 * <p>Security: {@code --listener PROTOCOL} (repeatable; the first is the one bootstrap.servers names),
 * {@code --user name:password} (repeatable), {@code --sasl-mechanism NAME} (repeatable; the first is the one client
 * configs use) and {@code --mutual-tls}. Then, after the ready line, one line {@code client.config=<file>} per user
 * (or one for no user): a Java client properties file, and beside it the same for librdkafka (kcat -F, KafkaJS users
 * read it too) ending in {@code .librdkafka.properties}, with the CA and any client certificate as PEM files. The
 * files live in the data directory, so they go when the cluster does unless {@code --config} gave none.
 *
 * <p>ACLs: {@code --acl "User:alice ALLOW READ TOPIC orders"} (repeatable; the syntax of {@link Security#acl(String)})
 * and {@code --super-user name} (repeatable) turn the authorizer on, on every listener (without {@code --listener},
 * on the one PLAINTEXT listener, whose clients are User:ANONYMOUS).
 *
 * <p>Control: {@code --control-port P} (0 picks a free port) serves the HTTP/JSON control endpoint on 127.0.0.1
 * ({@link ControlEndpoint}, docs/control.md) and prints {@code control=http://127.0.0.1:P} just before the ready line;
 * {@code --clock manual[:ISO-8601 instant]} runs the cluster on a manual clock (from {@value #DEFAULT_MANUAL_START}
 * unless an instant is given), which only the endpoint's {@code POST /clock/advance} moves. Without these options the
 * output is as it always was.
 */
public final class Standalone {

    static final String USAGE = "Usage: java -jar samsa-standalone.jar [--brokers N] [--port P] [--seed N]"
            + " [--config key=value]... [--topic name:partitions:replicationFactor]... [--feature transaction.version=N]"
            + " [--listener PLAINTEXT|SSL|SASL_PLAINTEXT|SASL_SSL]... [--user name:password]..."
            + " [--sasl-mechanism PLAIN|SCRAM-SHA-256|SCRAM-SHA-512|OAUTHBEARER]... [--mutual-tls]"
            + " [--acl 'User:name ALLOW|DENY OPERATION RESOURCE [PREFIXED] NAME']... [--super-user name]..."
            + " [--control-port P] [--clock system|manual[:2026-01-01T00:00:00Z]]";

    /** Where a manual clock starts unless --clock names an instant: the JUnit extension's default too. */
    static final String DEFAULT_MANUAL_START = "2026-01-01T00:00:00Z";

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
        Options options = new Options();
        try {
            cluster = parse(args, options).start();
        } catch (IllegalArgumentException e) {
            // A bad option, topic or broker config: one line naming it, no stack trace.
            System.err.println(e.getMessage());
            System.err.println(USAGE);
            System.exit(2);
            return;
        }
        ControlEndpoint control = null;
        if (options.controlPort != null) {
            try {
                control = ControlEndpoint.start(cluster, options.controlPort);
            } catch (IOException e) {
                System.err.println("Cannot serve the control endpoint on 127.0.0.1:" + options.controlPort + ": " + e.getMessage());
                cluster.close();
                System.exit(2);
                return;
            }
        }
        ControlEndpoint endpoint = control;
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (endpoint != null) {
                endpoint.close();
            }
            cluster.close();
            stopped.countDown();
        }, "samsa-shutdown"));
        PrintStream out = System.out;
        if (endpoint != null) {
            out.println("control=" + endpoint.url());
        }
        out.println("bootstrap.servers=" + cluster.bootstrapServers());
        if (options.secured()) {
            for (int i = 0; i < options.users.size(); i++) {
                out.println("client.config=" + ClientConfigFiles.write(cluster, options.users.get(i), options.passwords.get(i)));
            }
            if (options.users.isEmpty() && !options.mutualTls && options.listeners.stream().noneMatch(p -> p.name().startsWith("SASL"))) {
                out.println("client.config=" + ClientConfigFiles.write(cluster, null, null));
            }
        }
        out.flush();
        stopped.await();
    }

    /** The security options, gathered while parsing and given to the builder once all are known. */
    static final class Options {
        final List<Security.Protocol> listeners = new ArrayList<>();
        final List<Security.Mechanism> mechanisms = new ArrayList<>();
        final List<String> users = new ArrayList<>();
        final List<String> passwords = new ArrayList<>();
        final List<String> acls = new ArrayList<>();
        final List<String> superUsers = new ArrayList<>();
        boolean mutualTls;
        Integer controlPort;

        boolean secured() {
            return !listeners.isEmpty();
        }

        boolean authorized() {
            return !acls.isEmpty() || !superUsers.isEmpty();
        }

        Security security() {
            List<Security.Protocol> protocols = listeners.isEmpty() ? List.of(Security.Protocol.PLAINTEXT) : listeners;
            Security security = Security.listeners(protocols.get(0),
                    protocols.subList(1, protocols.size()).toArray(Security.Protocol[]::new));
            if (!mechanisms.isEmpty()) {
                security = security.mechanisms(mechanisms.get(0),
                        mechanisms.subList(1, mechanisms.size()).toArray(Security.Mechanism[]::new));
            }
            for (int i = 0; i < users.size(); i++) {
                security = security.user(users.get(i), passwords.get(i));
            }
            for (String acl : acls) {
                security = security.acl(acl);
            }
            if (!superUsers.isEmpty()) {
                security = security.superUsers(superUsers.toArray(String[]::new));
            }
            return mutualTls ? security.mutualTls() : security;
        }
    }

    /** @throws IllegalArgumentException naming the bad argument */
    static KafkaCluster.Builder parse(String[] args) {
        return parse(args, new Options());
    }

    private static KafkaCluster.Builder parse(String[] args, Options options) {
        KafkaCluster.Builder builder = KafkaCluster.builder();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("--mutual-tls")) {
                options.mutualTls = true;
                continue;
            }
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
                case "--listener" -> options.listeners.add(parseEnum(arg, value, Security.Protocol.class));
                case "--sasl-mechanism" -> options.mechanisms.add(parseEnum(arg, value.replace('-', '_'), Security.Mechanism.class));
                case "--user" -> {
                    int colon = value.indexOf(':');
                    if (colon <= 0) {
                        throw new IllegalArgumentException("--user expects name:password, got '" + value + "'");
                    }
                    options.users.add(value.substring(0, colon));
                    options.passwords.add(value.substring(colon + 1));
                }
                case "--acl" -> options.acls.add(value);
                case "--super-user" -> options.superUsers.add(value);
                case "--control-port" -> {
                    int port = parseInt(arg, value);
                    if (port < 0 || port > 65535) {
                        throw new IllegalArgumentException("--control-port must be 0..65535, got " + port);
                    }
                    options.controlPort = port;
                }
                case "--clock" -> builder.clock(parseClock(value));
                default -> throw new IllegalArgumentException("Unknown option " + arg);
            }
        }
        if (!options.secured() && (options.mutualTls || !options.users.isEmpty() || !options.mechanisms.isEmpty())) {
            throw new IllegalArgumentException("--user, --sasl-mechanism and --mutual-tls need a --listener other than PLAINTEXT");
        }
        return options.secured() || options.authorized() ? builder.security(options.security()) : builder;
    }

    /** "system", "manual" or "manual:2026-01-01T00:00:00Z". */
    private static ClusterClock parseClock(String value) {
        if (value.equals("system")) {
            return ClusterClock.system();
        }
        if (value.equals("manual") || value.startsWith("manual:")) {
            String start = value.equals("manual") ? DEFAULT_MANUAL_START : value.substring("manual:".length());
            try {
                return ClusterClock.manual(Instant.parse(start));
            } catch (DateTimeParseException e) {
                throw new IllegalArgumentException("--clock manual:START expects an ISO-8601 instant such as "
                        + DEFAULT_MANUAL_START + ", got '" + start + "'");
            }
        }
        throw new IllegalArgumentException("--clock expects system, manual or manual:" + DEFAULT_MANUAL_START + ", got '"
                + value + "'");
    }

    private static <E extends Enum<E>> E parseEnum(String option, String value, Class<E> type) {
        try {
            return Enum.valueOf(type, value.toUpperCase(java.util.Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(option + " expects one of " + java.util.Arrays.toString(type.getEnumConstants())
                    + ", got '" + value + "'");
        }
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
