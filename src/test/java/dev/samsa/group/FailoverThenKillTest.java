package dev.samsa.group;

import static dev.samsa.group.GroupClients.closeQuietly;
import static dev.samsa.group.GroupClients.consumer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.samsa.ConsumerGroup;
import dev.samsa.KafkaCluster;
import dev.samsa.event.MemberDisconnected;
import dev.samsa.time.ClusterClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;

/**
 * A member that heartbeats to its group's new coordinator after a failover is tied to its new connection there: killed
 * (its sockets close, no LeaveGroup), it is removed at the next jump of the manual clock past its session, while the
 * live member stays.
 */
class FailoverThenKillTest {

    @Test
    void aMemberKilledAfterItsCoordinatorMovedIsRemovedAtTheJump() {
        String group = "moved";
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(3).clock(ClusterClock.manual(Instant.parse("2026-01-01T00:00:00Z")))
                .brokerConfig("offsets.topic.num.partitions", "4").topic("orders", 6, 3).start()) {
            KafkaConsumer<String, String> a = consumer(cluster, group, "orders", Map.of("client.id", "a", "heartbeat.interval.ms", "1000", "session.timeout.ms", "10000"));
            KafkaConsumer<String, String> b = consumer(cluster, group, "orders", Map.of("client.id", "b", "heartbeat.interval.ms", "1000", "session.timeout.ms", "10000"));
            try {
                Groups.awaitStable(cluster, group, List.of(a, b));
                int p = Utils.abs(group.hashCode()) % 4;
                int coordinator = cluster.partition("__consumer_offsets", p).leader();
                cluster.broker(coordinator).crash();
                await().atMost(Duration.ofSeconds(10)).until(() -> {
                    int leader = cluster.partition("__consumer_offsets", p).leader();
                    return leader > 0 && leader != coordinator;
                });
                long at = System.nanoTime();
                await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(10)).until(() -> {
                    a.poll(Duration.ofMillis(10));
                    b.poll(Duration.ofMillis(10));
                    return System.nanoTime() - at > 3_000_000_000L;
                });
                int disconnectsBefore = cluster.events().events(MemberDisconnected.class).size();
                b.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.REMAIN_IN_GROUP).withTimeout(Duration.ZERO));
                await().atMost(Duration.ofSeconds(10)).until(() -> cluster.events().events(MemberDisconnected.class).size() > disconnectsBefore);
                cluster.clock().advance(Duration.ofMillis(10001));
                await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(10)).until(() -> {
                    a.poll(Duration.ofMillis(10));
                    return cluster.group(group).members().size() == 1;
                });
                assertThat(cluster.group(group).members()).extracting(ConsumerGroup.Member::clientId).containsExactly("a");
            } finally {
                closeQuietly(a);
            }
        }
    }
}
