package dev.samsa.group.modern;

import static dev.samsa.group.modern.ModernConsumers.partitions;
import static dev.samsa.group.modern.ModernConsumers.pollAll;
import static dev.samsa.group.modern.ModernConsumers.union;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.samsa.ConsumerGroup;
import dev.samsa.GroupState;
import dev.samsa.KafkaCluster;
import dev.samsa.event.CoordinatorLoaded;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;

/**
 * The coordinator's broker crashes while a consumer-protocol group is Stable: the new leader of the group's
 * {@code __consumer_offsets} partition replays the group's record, so the members keep their epochs and partitions
 * (no rebalance), and the committed offsets survive.
 */
class ConsumerProtocolFailoverTest {

    private static final int OFFSETS_PARTITIONS = 3;

    @Test
    void aNewCoordinatorKeepsMembersEpochsAssignmentsAndCommittedOffsets() throws Exception {
        try (KafkaCluster cluster = ModernConsumers.fastHeartbeats(KafkaCluster.builder().brokers(3).seed(4848)
                .brokerConfig("offsets.topic.num.partitions", Integer.toString(OFFSETS_PARTITIONS))
                .topic("orders", 6, 3)).start()) {
            ModernConsumers.Ledger ledger = new ModernConsumers.Ledger();
            List<KafkaConsumer<String, String>> members = new ArrayList<>();
            try {
                for (int n = 1; n <= 2; n++) {
                    KafkaConsumer<String, String> c = ModernConsumers.consumer(cluster, "billing", Map.of("client.id", "m" + n));
                    c.subscribe(List.of("orders"), ledger.listener("m" + n));
                    members.add(c);
                }
                await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(1)).untilAsserted(() -> {
                    pollAll(members);
                    assertThat(members).allSatisfy(c -> assertThat(c.assignment()).hasSize(3));
                    assertThat(cluster.group("billing").state()).isEqualTo(GroupState.STABLE);
                });
                // Records written once the split is settled, so that no partition changes hands while they are read.
                produce(cluster, 0);
                List<String> seen = new ArrayList<>();
                await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(1)).untilAsserted(() -> {
                    for (KafkaConsumer<String, String> c : members) {
                        c.poll(Duration.ofMillis(20)).forEach(r -> seen.add(r.value()));
                    }
                    assertThat(seen).hasSize(60);
                    assertThat(cluster.group("billing").state()).isEqualTo(GroupState.STABLE);
                });
                members.forEach(KafkaConsumer::commitSync);
                ConsumerGroup before = cluster.group("billing");
                Map<String, Integer> epochsBefore = epochs(before);

                int p = Utils.abs("billing".hashCode()) % OFFSETS_PARTITIONS;
                int coordinator = cluster.partition("__consumer_offsets", p).leader();
                cluster.broker(coordinator).crash();
                await().atMost(Duration.ofSeconds(10)).until(() -> cluster.events().events(CoordinatorLoaded.class).stream()
                        .anyMatch(l -> l.partition() == p && l.brokerId() != coordinator));

                ConsumerGroup loaded = cluster.group("billing");
                assertThat(loaded.groupType()).isEqualTo("consumer");
                assertThat(loaded.state()).as("loaded:\n%s", cluster.events()).isEqualTo(GroupState.STABLE);
                assertThat(epochs(loaded)).as("member epochs after the load").isEqualTo(epochsBefore);
                assertThat(loaded.members()).extracting(ConsumerGroup.Member::assignment)
                        .containsExactlyInAnyOrderElementsOf(before.members().stream().map(ConsumerGroup.Member::assignment).toList());
                assertThat(loaded.committed()).as("committed offsets").hasSize(6).allSatisfy((gp, offset) -> assertThat(offset).isEqualTo(10L));

                // Consumption resumes with the new coordinator, without a rebalance.
                List<Set<TopicPartition>> assignmentsBefore = members.stream().map(c -> Set.copyOf(c.assignment())).toList();
                produce(cluster, 10);
                List<String> after = new ArrayList<>();
                await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(1)).untilAsserted(() -> {
                    for (KafkaConsumer<String, String> c : members) {
                        for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(20))) {
                            after.add(r.value());
                        }
                    }
                    assertThat(after).hasSize(60);
                });
                pollAll(members);
                assertThat(members.stream().map(c -> Set.copyOf(c.assignment())).toList()).as("each member's partitions")
                        .isEqualTo(assignmentsBefore);
                assertThat(union(members)).containsExactlyInAnyOrderElementsOf(partitions("orders", 6));
                assertThat(epochs(cluster.group("billing"))).as("no new epoch").isEqualTo(epochsBefore);
                assertThat(ledger.violations()).isEmpty();
            } finally {
                members.forEach(c -> c.close(Duration.ofSeconds(5)));
            }
        }
    }

    private static Map<String, Integer> epochs(ConsumerGroup group) {
        Map<String, Integer> epochs = new TreeMap<>();
        group.members().forEach(m -> epochs.put(m.memberId(), m.memberEpoch()));
        return epochs;
    }

    private static void produce(KafkaCluster cluster, int from) throws Exception {
        Map<String, Object> config = cluster.producerConfig();
        config.put("acks", "all");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
            for (int p = 0; p < 6; p++) {
                for (int n = from; n < from + 10; n++) {
                    producer.send(new ProducerRecord<>("orders", p, "k", "p" + p + "-" + n)).get();
                }
            }
        }
    }
}
