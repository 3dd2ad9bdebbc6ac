package dev.samsa.group;

import static dev.samsa.group.GroupClients.closeQuietly;
import static dev.samsa.group.GroupClients.consumer;
import static dev.samsa.group.GroupClients.produce;
import static dev.samsa.group.GroupClients.values;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.samsa.ConsumerGroup;
import dev.samsa.GroupState;
import dev.samsa.KafkaCluster;
import dev.samsa.event.OffsetsExpired;
import dev.samsa.time.ClusterClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.junit.jupiter.api.Test;

/**
 * offsets.retention.minutes counts from when a consumer group became Empty, and is checked every
 * offsets.retention.check.interval.ms: an age deadline, so a manual clock jump past it expires the offsets.
 */
class OffsetRetentionTest {

    private static final String TOPIC = "events";
    private static final String GROUP = "archiver";

    @Test
    void offsetsOfAnEmptyGroupExpireAfterTheRetentionAndTheGroupRereadsFromTheStart() {
        // The topic keeps its records forever, so only the group's offsets age out during the jump.
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(24).clock(ClusterClock.manual(Instant.parse("2026-01-01T00:00:00Z")))
                .brokerConfig("offsets.retention.minutes", "10080").brokerConfig("offsets.retention.check.interval.ms", "600000")
                .topic(TOPIC, 3, 3, Map.of("retention.ms", "-1")).start()) {
            List<String> sent = produce(cluster, TOPIC, 3, 3);
            KafkaConsumer<String, String> first = consumer(cluster, GROUP, TOPIC, Map.of("client.id", "first"));
            List<String> read = new ArrayList<>();
            try {
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(1)).until(() -> {
                    read.addAll(values(first.poll(Duration.ofMillis(50))));
                    return read.size() >= sent.size();
                });
                first.commitSync();
            } finally {
                first.close(Duration.ofSeconds(5));
            }
            ConsumerGroup empty = cluster.group(GROUP);
            assertThat(empty.state()).as("%s", empty).isEqualTo(GroupState.EMPTY);
            assertThat(empty.committed().values()).as("%s", empty).containsOnly(3L).hasSize(3);

            // 7 days minus 10 minutes: the group has been Empty for less than offsets.retention.minutes at every
            // check so far (the last one ran exactly now).
            cluster.clock().advance(Duration.ofMinutes(10080 - 10));
            assertThat(cluster.group(GROUP).committed()).as("before the retention:\n%s", cluster.events()).hasSize(3);
            assertThat(cluster.events().matching(e -> e.type().equals("OffsetsExpired"))).isEmpty();

            // 20 more minutes: the check at exactly 7 days finds the offsets expired, and the Empty group without
            // offsets is removed.
            cluster.clock().advance(Duration.ofMinutes(20));
            ConsumerGroup expired = cluster.group(GROUP);
            assertThat(expired.committed()).as("after the retention:\n%s", cluster.events()).isEmpty();
            assertThat(expired.state()).isEqualTo(GroupState.DEAD);
            assertThat(cluster.events().matching(e -> e.event() instanceof OffsetsExpired x && x.groupId().equals(GROUP)))
                    .singleElement().satisfies(e -> assertThat(e.timeMs())
                            .isEqualTo(Instant.parse("2026-01-08T00:00:00Z").toEpochMilli()));

            // With no committed offset, auto.offset.reset=earliest starts the group over from the beginning.
            KafkaConsumer<String, String> second = consumer(cluster, GROUP, TOPIC, Map.of("client.id", "second"));
            List<String> reread = new ArrayList<>();
            try {
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(1)).until(() -> {
                    reread.addAll(values(second.poll(Duration.ofMillis(50))));
                    return reread.size() >= sent.size();
                });
            } finally {
                closeQuietly(second);
            }
            assertThat(reread).as("re-read from the start").containsExactlyInAnyOrderElementsOf(sent);
        }
    }
}
