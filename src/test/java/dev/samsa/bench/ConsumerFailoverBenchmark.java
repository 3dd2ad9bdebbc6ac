package dev.samsa.bench;

import dev.samsa.KafkaCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * How long a classic consumer group takes to notice a member that vanished: two consumers share 6 partitions with
 * {@code session.timeout.ms=6000} (every other setting the client's default, auto-commit included) on the system
 * clock; one closes with {@code REMAIN_IN_GROUP} and a zero timeout (no LeaveGroup: it just stops, as a crashed
 * process does), and the time until the survivor owns all 6 partitions is measured. Kafka answers about 8.5 s: the
 * session counts from the vanished member's last heartbeat or commit, and the survivor learns of the rebalance at its
 * next heartbeat. Samsa (1 broker) and, with {@code --bootstrap host:port}, the cluster listening there (bench/kafka.sh
 * starts Kafka) in the same run. Not a test: surefire excludes {@code **}{@code /bench/**}.
 *
 * <pre>
 * bench/kafka.sh 4.4.0 &amp;
 * BENCH=ConsumerFailoverBenchmark bench/run.sh [runs] [--bootstrap 127.0.0.1:19092]     (default 3 runs)
 * </pre>
 */
public final class ConsumerFailoverBenchmark {

    private static final int PARTITIONS = 6;

    private ConsumerFailoverBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        NanoSamples.Args parsed = NanoSamples.Args.parse(args);
        String bootstrap = parsed.bootstrap();
        int runs = parsed.integer(0, 3);
        System.out.printf(Locale.ROOT, "JVM %s, %d CPUs, %d runs per target%n", Runtime.version(),
                Runtime.getRuntime().availableProcessors(), runs);
        try (KafkaCluster cluster = KafkaCluster.builder().start()) {
            System.out.printf(Locale.ROOT, "%-22s %s%n", "samsa 1 broker", measure(cluster.bootstrapServers(), runs));
        }
        if (bootstrap != null) {
            System.out.printf(Locale.ROOT, "%-22s %s%n", bootstrap, measure(bootstrap, runs));
        }
    }

    private static String measure(String bootstrap, int runs) throws Exception {
        List<String> ms = new ArrayList<>();
        for (int run = 0; run < runs; run++) {
            ms.add(String.format(Locale.ROOT, "%,d", failoverMs(bootstrap)));
        }
        return "survivor owns all " + PARTITIONS + " after (ms): " + String.join(" / ", ms);
    }

    private static long failoverMs(String bootstrap) throws Exception {
        String topic = "failover-" + UUID.randomUUID();
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1))).all().get();
        }
        String group = "failover-" + UUID.randomUUID();
        try (KafkaConsumer<String, String> survivor = consumer(bootstrap, group, topic);
             KafkaConsumer<String, String> vanishing = consumer(bootstrap, group, topic)) {
            while (survivor.assignment().size() + vanishing.assignment().size() != PARTITIONS
                    || survivor.assignment().isEmpty() || vanishing.assignment().isEmpty()) {
                survivor.poll(Duration.ofMillis(50));
                vanishing.poll(Duration.ofMillis(50));
            }
            long start = System.nanoTime();
            vanishing.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.REMAIN_IN_GROUP)
                    .withTimeout(Duration.ZERO));
            while (survivor.assignment().size() != PARTITIONS) {
                survivor.poll(Duration.ofMillis(50));
                if (System.nanoTime() - start > 60_000_000_000L) {
                    throw new IllegalStateException("the survivor did not get every partition within 60 s");
                }
            }
            return (System.nanoTime() - start) / 1_000_000;
        }
    }

    private static KafkaConsumer<String, String> consumer(String bootstrap, String group, String topic) {
        KafkaConsumer<String, String> c = new KafkaConsumer<>(Map.of("bootstrap.servers", bootstrap, "group.id", group,
                "group.protocol", "classic", "session.timeout.ms", "6000", "key.deserializer", StringDeserializer.class,
                "value.deserializer", StringDeserializer.class));
        c.subscribe(List.of(topic));
        return c;
    }
}
