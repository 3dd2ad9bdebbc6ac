package dev.samsa.group;

import static org.assertj.core.api.Assertions.assertThat;

import dev.samsa.KafkaCluster;
import dev.samsa.event.MemberRemoved;
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
 * As in Kafka's group coordinator, an OffsetCommit from a member of a Stable classic group maintains its session as a
 * Heartbeat does: a member that commits at cluster time t and then goes silent is removed at t + session.timeout.ms,
 * not a session after its last heartbeat. (Without this rule a consumer that vanished right after committing was
 * evicted seconds early.)
 */
class OffsetCommitSessionTest {

    private static final Duration SESSION = Duration.ofSeconds(45);

    @Test
    void aCommitKeepsTheMemberUntilASessionAfterIt() {
        try (KafkaCluster cluster = KafkaCluster.builder().seed(7).clock(ClusterClock.manual(Instant.parse("2026-01-01T00:00:00Z")))
                .topic("orders", 6, 1).start()) {
            Map<String, Object> config = cluster.consumerConfig("billing");
            config.put("group.instance.id", "billing-1");
            config.put("enable.auto.commit", "false");
            config.put("session.timeout.ms", String.valueOf(SESSION.toMillis()));
            // No heartbeat of its own after the join while the test runs: only the commit can re-arm its session.
            config.put("heartbeat.interval.ms", "40000");
            KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config);
            consumer.subscribe(List.of("orders"));
            Groups.awaitStable(cluster, "billing", List.of(consumer));

            cluster.clock().advance(Duration.ofSeconds(30));
            consumer.commitSync(Map.of(new TopicPartition("orders", 0), new OffsetAndMetadata(0)));
            // A static member leaves no LeaveGroup behind: it is gone only once its session ends.
            consumer.close(Duration.ZERO);

            cluster.clock().advance(SESSION.minusSeconds(30).plusMillis(1));
            assertThat(cluster.group("billing").members()).as("a session after its join, but not after its commit\n%s",
                    cluster.events()).hasSize(1);
            cluster.clock().advance(Duration.ofSeconds(30).minusMillis(2));
            assertThat(cluster.group("billing").members()).as("1 ms before a session after its commit").hasSize(1);

            cluster.clock().advance(Duration.ofMillis(1));
            assertThat(cluster.group("billing").members()).as("a session after its commit\n%s", cluster.events()).isEmpty();
            assertThat(cluster.events().events(MemberRemoved.class)).singleElement()
                    .satisfies(m -> assertThat(m.reason()).startsWith("session timeout of 45000 ms expired"));
        }
    }
}
