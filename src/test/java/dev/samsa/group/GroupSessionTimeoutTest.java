package dev.samsa.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.samsa.ConsumerGroup;
import dev.samsa.GroupState;
import dev.samsa.KafkaCluster;
import dev.samsa.event.MemberRemoved;
import dev.samsa.time.ClusterClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.junit.jupiter.api.Test;

/** The session timeout is a liveness deadline: a clock jump removes the dead member and keeps the live one. */
class GroupSessionTimeoutTest {

    @Test
    void advancingTheClockPastTheSessionRemovesOnlyTheMemberThatStoppedHeartbeating() {
        try (KafkaCluster cluster = KafkaCluster.builder().seed(5).clock(ClusterClock.manual(Instant.parse("2026-01-01T00:00:00Z")))
                .topic("orders", 6, 1).start()) {
            // The live member heartbeats every second: the jump must not count a stall of a busy machine (a few
            // hundred ms without a heartbeat) as silence, and two intervals of slack allow for one.
            KafkaConsumer<String, String> live = consumer(cluster, "live", 1000);
            KafkaConsumer<String, String> dying = consumer(cluster, "dying", 100);
            try {
                Groups.awaitStable(cluster, "billing", List.of(live, dying));
                int generation = cluster.group("billing").generation();
                String dyingId = cluster.group("billing").members().stream().filter(m -> m.clientId().equals("dying"))
                        .findFirst().orElseThrow().memberId();

                // Both run for a while, so the coordinator learns the dying member's heartbeat interval (100 ms) from
                // the gaps between its heartbeats; before two heartbeats it would assume session.timeout.ms / 3.
                long stableAt = System.nanoTime();
                await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(10)).until(() -> {
                    live.poll(Duration.ofMillis(10));
                    dying.poll(Duration.ofMillis(10));
                    return System.nanoTime() - stableAt > 1_000_000_000L;
                });

                // The process dies: no LeaveGroup, no more heartbeats.
                dying.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.REMAIN_IN_GROUP));
                // The dead member must be silent in wall time for longer than its heartbeat interval (100 ms) before a
                // jump can tell it from a live one; the live one keeps polling meanwhile.
                long closedAt = System.nanoTime();
                await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(10)).until(() -> {
                    live.poll(Duration.ofMillis(10));
                    return System.nanoTime() - closedAt > 500_000_000L;
                });

                // 45 s of cluster time passes in one call: both sessions are past their deadline in cluster time, but
                // only the dead member has been silent in wall time.
                cluster.clock().advance(Duration.ofSeconds(45));

                ConsumerGroup afterJump = cluster.group("billing");
                assertThat(afterJump.state()).as("%s\n%s", afterJump, cluster.events()).isEqualTo(GroupState.PREPARING_REBALANCE);
                assertThat(afterJump.members()).as("%s", afterJump).extracting(ConsumerGroup.Member::clientId).containsExactly("live");
                assertThat(cluster.events().events(MemberRemoved.class)).filteredOn(m -> m.memberId().equals(dyingId))
                        .as("timeline:\n%s", cluster.events()).singleElement()
                        .satisfies(m -> assertThat(m.reason()).contains("session timeout"));

                Groups.awaitStable(cluster, "billing", List.of(live));
                assertThat(cluster.group("billing").generation()).isEqualTo(generation + 1);
            } finally {
                live.close(Duration.ofSeconds(5));
            }
        }
    }

    private static KafkaConsumer<String, String> consumer(KafkaCluster cluster, String clientId, int heartbeatMs) {
        Map<String, Object> config = cluster.consumerConfig("billing");
        config.put("client.id", clientId);
        config.put("session.timeout.ms", "45000");
        config.put("heartbeat.interval.ms", String.valueOf(heartbeatMs));
        KafkaConsumer<String, String> c = new KafkaConsumer<>(config);
        c.subscribe(List.of("orders"));
        return c;
    }
}
