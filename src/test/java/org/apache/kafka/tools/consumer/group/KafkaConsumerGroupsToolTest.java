package org.apache.kafka.tools.consumer.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.samsa.GroupState;
import dev.samsa.KafkaCluster;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.utils.internals.Exit;
import org.junit.jupiter.api.Test;

/**
 * Kafka's own {@code kafka-consumer-groups} tool (ConsumerGroupCommand of kafka-tools 4.1) against Samsa: --describe
 * shows a consumer-protocol group and a classic group (type, state, members, assignments) as against Kafka. The tool
 * prints to System.out, which the test borrows while it runs.
 */
class KafkaConsumerGroupsToolTest {

    @Test
    void describeShowsAConsumerProtocolGroupAndAClassicGroup() {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).brokerConfig("group.consumer.heartbeat.interval.ms", "200")
                .topic("orders", 4, 3).start()) {
            KafkaConsumer<String, String> modern = consumer(cluster, "modern-group", "consumer", "modern-client");
            KafkaConsumer<String, String> classic = consumer(cluster, "classic-group", "classic", "classic-client");
            try {
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(1)).until(() -> {
                    modern.poll(Duration.ofMillis(20));
                    classic.poll(Duration.ofMillis(20));
                    return modern.assignment().size() == 4 && classic.assignment().size() == 4
                            && cluster.group("modern-group").state() == GroupState.STABLE
                            && cluster.group("classic-group").state() == GroupState.STABLE;
                });

                assertThat(run(cluster, "--describe", "--group", "modern-group", "--state"))
                        // the coordinator as host:port (id), the server-side assignor, the state, one member
                        .containsPattern("modern-group\\s+\\S+\\s+\\(\\d\\)\\s+uniform\\s+Stable\\s+1")
                        .contains("GROUP", "COORDINATOR (ID)", "ASSIGNMENT-STRATEGY", "STATE", "#MEMBERS");
                assertThat(run(cluster, "--describe", "--group", "modern-group", "--members", "--verbose"))
                        .contains("CURRENT-EPOCH", "CURRENT-ASSIGNMENT", "TARGET-EPOCH", "TARGET-ASSIGNMENT")
                        // #partitions, its epoch and assignment, the target epoch and assignment
                        .containsPattern("modern-client\\s+4\\s+(\\d+)\\s+orders:0,1,2,3\\s+\\1\\s+orders:0,1,2,3");
                assertThat(run(cluster, "--describe", "--group", "classic-group", "--members", "--verbose"))
                        .contains("classic-client", "orders:0,1,2,3");
                assertThat(run(cluster, "--describe", "--group", "classic-group", "--state"))
                        .containsPattern("classic-group\\s+\\S+\\s+\\(\\d\\)\\s+range\\s+Stable\\s+1");
                assertThat(run(cluster, "--list", "--type"))
                        .containsPattern("modern-group\\s+Consumer")
                        .containsPattern("classic-group\\s+Classic");
            } finally {
                modern.close(Duration.ofSeconds(5));
                classic.close(Duration.ofSeconds(5));
            }
        }
    }

    private static KafkaConsumer<String, String> consumer(KafkaCluster cluster, String group, String protocol, String clientId) {
        Map<String, Object> config = cluster.consumerConfig(group);
        config.put("group.protocol", protocol);
        config.put("client.id", clientId);
        KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config);
        consumer.subscribe(List.of("orders"));
        return consumer;
    }

    private static String run(KafkaCluster cluster, String... command) {
        String[] args = new String[command.length + 2];
        args[0] = "--bootstrap-server";
        args[1] = cluster.bootstrapServers();
        System.arraycopy(command, 0, args, 2, command.length);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream stdout = System.out;
        Exit.setExitProcedure((code, message) -> {
            throw new AssertionError("kafka-consumer-groups " + List.of(command) + " exited with " + code + ": " + message);
        });
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            System.setOut(out);
            ConsumerGroupCommand.main(args);
        } finally {
            System.setOut(stdout);
            Exit.resetExitProcedure();
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
