package dev.samsa.group.modern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.samsa.ConsumerGroup;
import dev.samsa.GroupPartition;
import dev.samsa.GroupState;
import dev.samsa.KafkaCluster;
import dev.samsa.event.GroupRemoved;
import dev.samsa.event.OffsetsExpired;
import dev.samsa.time.ClusterClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * Offsets expiry for KIP-848 consumer groups, as Kafka's {@code ConsumerGroup.offsetExpirationCondition}: an offset
 * of a topic no member subscribes to expires offsets.retention.minutes after its commit (not after the group became
 * Empty, as for a classic group), and an Empty group left without offsets is removed.
 */
class ConsumerProtocolOffsetRetentionTest {

    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

    private static KafkaCluster cluster() {
        return ModernConsumers.fastHeartbeats(KafkaCluster.builder().brokers(1).seed(12).clock(ClusterClock.manual(START))
                        .brokerConfig("offsets.retention.minutes", "60").brokerConfig("offsets.retention.check.interval.ms", "60000")
                        .topic("events", 2, 1).topic("audit", 1, 1))
                .start();
    }

    @Test
    void anEmptyConsumerGroupsOffsetsAgeFromTheirCommitAndTheGroupIsThenRemoved() {
        try (KafkaCluster cluster = cluster()) {
            KafkaConsumer<String, String> consumer = ModernConsumers.consumer(cluster, "archiver", Map.of());
            consumer.subscribe(List.of("events"));
            try {
                awaitAssigned(consumer, 2);
                consumer.commitSync(Map.of(new TopicPartition("events", 0), new OffsetAndMetadata(5),
                        new TopicPartition("events", 1), new OffsetAndMetadata(7)));
                // The member lives on for 30 minutes of cluster time after the commit.
                cluster.clock().advance(Duration.ofMinutes(30));
                consumer.poll(Duration.ofMillis(50));
            } finally {
                consumer.close(Duration.ofSeconds(5));
            }
            assertThat(cluster.group("archiver").state()).isEqualTo(GroupState.EMPTY);

            // 55 minutes after the commit (25 after the group became Empty): nothing has expired yet.
            cluster.clock().advance(Duration.ofMinutes(25));
            assertThat(cluster.group("archiver").committed()).as("%s", cluster.events()).hasSize(2);

            // 65 minutes after the commit, only 35 after the group became Empty: Kafka counts from the commit.
            cluster.clock().advance(Duration.ofMinutes(10));
            ConsumerGroup expired = cluster.group("archiver");
            assertThat(expired.committed()).as("%s", cluster.events()).isEmpty();
            assertThat(expired.state()).isEqualTo(GroupState.DEAD);
            assertThat(cluster.events().events(OffsetsExpired.class)).singleElement()
                    .satisfies(e -> assertThat(e.partitions()).containsExactlyInAnyOrder("events-0", "events-1"));
            assertThat(cluster.events().events(GroupRemoved.class)).singleElement()
                    .satisfies(r -> assertThat(r.groupId()).isEqualTo("archiver"));
        }
    }

    @Test
    void aStableGroupKeepsTheOffsetsOfItsSubscribedTopicsAndLosesTheOthers() {
        try (KafkaCluster cluster = cluster()) {
            KafkaConsumer<String, String> consumer = ModernConsumers.consumer(cluster, "archiver", Map.of());
            consumer.subscribe(List.of("events"));
            try {
                awaitAssigned(consumer, 2);
                consumer.commitSync(Map.of(new TopicPartition("events", 0), new OffsetAndMetadata(5),
                        new TopicPartition("audit", 0), new OffsetAndMetadata(3)));
                cluster.clock().advance(Duration.ofMinutes(61));
                consumer.poll(Duration.ofMillis(50));

                ConsumerGroup stable = cluster.group("archiver");
                assertThat(stable.state()).as("%s", cluster.events()).isEqualTo(GroupState.STABLE);
                assertThat(stable.committed()).as("%s", cluster.events())
                        .containsOnlyKeys(new GroupPartition("events", 0));
                assertThat(cluster.events().events(OffsetsExpired.class)).singleElement()
                        .satisfies(e -> assertThat(e.partitions()).containsExactly("audit-0"));
            } finally {
                consumer.close(Duration.ofSeconds(5));
            }
        }
    }

    private static void awaitAssigned(KafkaConsumer<String, String> consumer, int partitions) {
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(1)).until(() -> {
            consumer.poll(Duration.ofMillis(20));
            return consumer.assignment().size() == partitions;
        });
    }
}
