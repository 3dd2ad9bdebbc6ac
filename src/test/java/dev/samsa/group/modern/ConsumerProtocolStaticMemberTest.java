package dev.samsa.group.modern;

import static dev.samsa.group.modern.ModernConsumers.pollAll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.samsa.ConsumerGroup;
import dev.samsa.GroupState;
import dev.samsa.KafkaCluster;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * A static member ({@code group.instance.id}) that closes (epoch -2) and comes back within the session gets its
 * partitions back, and the group epoch does not move, so the other member is not disturbed.
 */
class ConsumerProtocolStaticMemberTest {

    @Test
    void aStaticMemberBackWithinItsSessionGetsItsPartitionsWithoutANewGroupEpoch() {
        try (KafkaCluster cluster = ModernConsumers.fastHeartbeats(KafkaCluster.builder().brokers(3).seed(12)
                .topic("orders", 6, 3)).start();
             KafkaConsumer<String, String> other = ModernConsumers.consumer(cluster, "billing", Map.of("client.id", "other"))) {
            other.subscribe(List.of("orders"));
            KafkaConsumer<String, String> stat = staticMember(cluster);
            await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(1)).untilAsserted(() -> {
                pollAll(List.of(other, stat));
                assertThat(stat.assignment()).hasSize(3);
                assertThat(other.assignment()).hasSize(3);
                assertThat(cluster.group("billing").state()).isEqualTo(GroupState.STABLE);
            });
            Set<TopicPartition> itsPartitions = Set.copyOf(stat.assignment());
            Set<TopicPartition> othersPartitions = Set.copyOf(other.assignment());
            int epoch = cluster.group("billing").generation();
            stat.close(Duration.ofSeconds(5));

            ConsumerGroup away = cluster.group("billing");
            assertThat(away.members()).as("its place is kept: %s", away).hasSize(2)
                    .anySatisfy(m -> assertThat(m.memberEpoch()).isEqualTo(-2));

            try (KafkaConsumer<String, String> back = staticMember(cluster)) {
                await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(1)).untilAsserted(() -> {
                    pollAll(List.of(other, back));
                    assertThat(back.assignment()).isEqualTo(itsPartitions);
                });
                pollAll(List.of(other));
                assertThat(other.assignment()).isEqualTo(othersPartitions);
                ConsumerGroup after = cluster.group("billing");
                assertThat(after.generation()).as("group epoch: %s\n%s", after, cluster.events()).isEqualTo(epoch);
                assertThat(after.state()).isEqualTo(GroupState.STABLE);
            }
        }
    }

    private static KafkaConsumer<String, String> staticMember(KafkaCluster cluster) {
        KafkaConsumer<String, String> c = ModernConsumers.consumer(cluster, "billing",
                Map.of("client.id", "static", "group.instance.id", "billing-1"));
        c.subscribe(List.of("orders"));
        return c;
    }
}
