package dev.samsa.bench;

import dev.samsa.GroupState;
import dev.samsa.KafkaCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * Group rebalances, both protocols in the same run. Not a test: surefire excludes {@code **}{@code /bench/**}.
 *
 * <pre>
 * mvn -o -q test-compile dependency:build-classpath -Dmdep.outputFile=cp.txt
 * java &lt;pom.xml's chronicle.jvm.flags&gt; -cp target/classes:target/test-classes:$(cat cp.txt) dev.samsa.bench.GroupRebalanceBenchmark [runs [joins]]
 * </pre>
 *
 * <p>Per run, on a fresh 3-broker cluster with a 6-partition topic, three real consumers polled round-robin on one
 * thread: the wall time from their first poll to a Stable group where each owns two partitions, then from one
 * member's close to the two survivors owning all six. Once with the clients' and brokers' default heartbeat intervals
 * (classic 3 s, consumer 5 s: what a user meets), once with fast ones (classic client 100 ms, broker
 * {@code group.consumer.heartbeat.interval.ms} 200 ms). Printed as min / median / max in milliseconds.
 *
 * <p>Then joins of a lone consumer, per protocol: the first group of a fresh cluster (its FindCoordinator creates
 * {@code __consumer_offsets}), and {@value #LATER_JOINS} later groups on the same cluster, each from the consumer's
 * first poll to it owning all six partitions. A second argument {@code joins} runs only these.
 */
public final class GroupRebalanceBenchmark {

    private static final int LATER_JOINS = 5;

    private GroupRebalanceBenchmark() {
    }

    public static void main(String[] args) {
        int runs = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        System.out.printf(Locale.ROOT, "JVM %s, %d CPUs, %d runs each%n", Runtime.version(),
                Runtime.getRuntime().availableProcessors(), runs);
        boolean joinsOnly = args.length > 1 && args[1].equals("joins");
        for (boolean fast : joinsOnly ? new boolean[0] : new boolean[] {false, true}) {
            for (String protocol : List.of("classic", "consumer")) {
                double[] join = new double[runs];
                double[] leave = new double[runs];
                for (int i = 0; i < runs; i++) {
                    double[] r = run(protocol, fast, 100 + i);
                    join[i] = r[0];
                    leave[i] = r[1];
                }
                System.out.printf(Locale.ROOT, "%-8s %-8s first poll -> Stable(3): %s   leave -> survivors own all: %s%n",
                        protocol, fast ? "fast" : "default", stats(join), stats(leave));
            }
        }
        for (String protocol : List.of("classic", "consumer")) {
            double[] first = new double[runs];
            double[] later = new double[runs * LATER_JOINS];
            for (int i = 0; i < runs; i++) {
                try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(200 + i).topic("orders", 6, 3).start()) {
                    first[i] = lonelyJoin(cluster, protocol, "first");
                    for (int g = 0; g < LATER_JOINS; g++) {
                        later[i * LATER_JOINS + g] = lonelyJoin(cluster, protocol, "later-" + g);
                    }
                }
            }
            System.out.printf(Locale.ROOT, "%-8s lone consumer: first join of a cluster %s   later joins %s%n", protocol,
                    stats(first), stats(later));
        }
    }

    /** Milliseconds from a new consumer's first poll to it owning all six partitions, in a group of its own. */
    private static double lonelyJoin(KafkaCluster cluster, String protocol, String groupId) {
        Map<String, Object> config = cluster.consumerConfig(groupId);
        config.put("group.protocol", protocol);
        config.put("enable.auto.commit", "false");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
            consumer.subscribe(List.of("orders"));
            long start = System.nanoTime();
            while (consumer.assignment().size() != 6) {
                consumer.poll(Duration.ofMillis(1));
            }
            double millis = (System.nanoTime() - start) / 1e6;
            consumer.close(Duration.ofSeconds(10));
            return millis;
        }
    }

    private static double[] run(String protocol, boolean fast, long seed) {
        KafkaCluster.Builder builder = KafkaCluster.builder().brokers(3).seed(seed).topic("orders", 6, 3);
        if (fast) {
            builder.brokerConfig("group.consumer.heartbeat.interval.ms", "200");
        }
        try (KafkaCluster cluster = builder.start()) {
            List<KafkaConsumer<String, String>> members = new ArrayList<>();
            for (int n = 0; n < 3; n++) {
                Map<String, Object> config = cluster.consumerConfig("bench");
                config.put("group.protocol", protocol);
                config.put("enable.auto.commit", "false");
                if (fast && protocol.equals("classic")) {
                    config.put("heartbeat.interval.ms", "100");
                }
                KafkaConsumer<String, String> c = new KafkaConsumer<>(config);
                c.subscribe(List.of("orders"));
                members.add(c);
            }
            long start = System.nanoTime();
            while (!(cluster.group("bench").state() == GroupState.STABLE && owns(members, 2))) {
                members.forEach(c -> c.poll(Duration.ofMillis(5)));
            }
            double joinMs = (System.nanoTime() - start) / 1e6;
            KafkaConsumer<String, String> leaving = members.remove(2);
            start = System.nanoTime();
            leaving.close(Duration.ofSeconds(10));
            while (!owns(members, 3)) {
                members.forEach(c -> c.poll(Duration.ofMillis(5)));
            }
            double leaveMs = (System.nanoTime() - start) / 1e6;
            members.forEach(c -> c.close(Duration.ofSeconds(10)));
            return new double[] {joinMs, leaveMs};
        }
    }

    /** Each member owns {@code each} partitions and together they own all six. */
    private static boolean owns(List<KafkaConsumer<String, String>> members, int each) {
        Set<TopicPartition> all = new HashSet<>();
        for (KafkaConsumer<String, String> c : members) {
            if (c.assignment().size() != each) {
                return false;
            }
            all.addAll(c.assignment());
        }
        return all.size() == 6;
    }

    private static String stats(double[] millis) {
        double[] sorted = millis.clone();
        Arrays.sort(sorted);
        return String.format(Locale.ROOT, "%.0f / %.0f / %.0f", sorted[0], sorted[sorted.length / 2], sorted[sorted.length - 1]);
    }
}
