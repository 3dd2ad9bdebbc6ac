package dev.samsa.group.modern;

import static dev.samsa.group.modern.ModernConsumers.partitions;
import static dev.samsa.group.modern.ModernConsumers.pollAll;
import static dev.samsa.group.modern.ModernConsumers.union;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.samsa.KafkaCluster;
import dev.samsa.event.GroupStateChanged;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.junit.jupiter.api.Test;

/**
 * Real {@code group.protocol=consumer} clients against three brokers: one, two, three members on a 6-partition topic,
 * then one leaves. After each change the partitions are split evenly, and no partition is ever assigned to a member
 * while another still owns it (every member's rebalance listener writes one ledger).
 */
class ConsumerProtocolRebalanceTest {

    @Test
    void membersSplitThePartitionsAndNoPartitionHasTwoOwnersAtOnce() {
        try (KafkaCluster cluster = ModernConsumers.fastHeartbeats(KafkaCluster.builder().brokers(3).seed(848)
                .topic("orders", 6, 3)).start()) {
            ModernConsumers.Ledger ledger = new ModernConsumers.Ledger();
            List<KafkaConsumer<String, String>> members = new ArrayList<>();
            try {
                for (int n = 1; n <= 3; n++) {
                    KafkaConsumer<String, String> c = ModernConsumers.consumer(cluster, "billing", Map.of("client.id", "m" + n));
                    c.subscribe(List.of("orders"), ledger.listener("m" + n));
                    members.add(c);
                    awaitEvenSplit(members, ledger);
                }
                KafkaConsumer<String, String> leaving = members.remove(2);
                leaving.close(Duration.ofSeconds(5));
                awaitEvenSplit(members, ledger);

                assertThat(ledger.violations()).as("partitions assigned while another member owned them").isEmpty();
                List<String> states = cluster.events().events(GroupStateChanged.class).stream()
                        .filter(e -> e.groupId().equals("billing")).map(GroupStateChanged::state).toList();
                assertThat(states).as("the group's states in order").startsWith("Stable").contains("Reconciling", "Assigning")
                        .endsWith("Stable");
            } finally {
                members.forEach(c -> c.close(Duration.ofSeconds(5)));
            }
        }
    }

    private static void awaitEvenSplit(List<KafkaConsumer<String, String>> members, ModernConsumers.Ledger ledger) {
        int share = 6 / members.size();
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(1)).untilAsserted(() -> {
            pollAll(members);
            assertThat(ledger.violations()).isEmpty();
            assertThat(union(members)).as("every partition owned").containsExactlyInAnyOrderElementsOf(partitions("orders", 6));
            for (KafkaConsumer<String, String> c : members) {
                assertThat(c.assignment()).as("each of %d members owns %d", members.size(), share).hasSize(share);
            }
        });
    }
}
