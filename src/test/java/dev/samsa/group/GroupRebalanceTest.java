package dev.samsa.group;

import static org.assertj.core.api.Assertions.assertThat;

import dev.samsa.KafkaCluster;
import dev.samsa.event.GroupStateChanged;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Real KafkaConsumers (subscribe) join and leave a group; partitions stay covered exactly once. */
class GroupRebalanceTest {

    private static final String TOPIC = "orders";

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"org.apache.kafka.clients.consumer.RangeAssignor",
            "org.apache.kafka.clients.consumer.CooperativeStickyAssignor"})
    void membersJoinAndLeaveAndPartitionsAreCoveredExactlyOnce(String assignor) {
        try (KafkaCluster cluster = KafkaCluster.builder().seed(11).topic(TOPIC, 6, 1).start()) {
            String group = "g-" + assignor.hashCode();
            List<KafkaConsumer<String, String>> consumers = new ArrayList<>();
            try {
                for (int n = 1; n <= 3; n++) {
                    consumers.add(consumer(cluster, group, assignor, "c" + n));
                    Groups.awaitStable(cluster, group, consumers);
                }
                KafkaConsumer<String, String> leaving = consumers.remove(2);
                leaving.close(Duration.ofSeconds(5));
                Groups.awaitStable(cluster, group, consumers);
            } finally {
                consumers.forEach(c -> c.close(Duration.ofSeconds(5)));
            }
            List<String> transitions = cluster.events().events(GroupStateChanged.class).stream()
                    .filter(c -> c.groupId().equals(group)).map(c -> c.previousState() + "->" + c.state()).toList();
            assertThat(transitions).as("state transitions of %s:\n%s", group, cluster.events())
                    .startsWith("Empty->PreparingRebalance", "PreparingRebalance->CompletingRebalance", "CompletingRebalance->Stable",
                            "Stable->PreparingRebalance", "PreparingRebalance->CompletingRebalance", "CompletingRebalance->Stable")
                    .contains("PreparingRebalance->Empty");
        }
    }

    static KafkaConsumer<String, String> consumer(KafkaCluster cluster, String group, String assignor, String clientId) {
        Map<String, Object> config = cluster.consumerConfig(group);
        config.put("partition.assignment.strategy", assignor);
        config.put("client.id", clientId);
        config.put("heartbeat.interval.ms", "100");
        KafkaConsumer<String, String> c = new KafkaConsumer<>(config);
        c.subscribe(List.of(TOPIC));
        return c;
    }
}
