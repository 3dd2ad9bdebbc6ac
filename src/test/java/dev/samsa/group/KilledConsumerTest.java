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
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.junit.jupiter.api.Test;

/**
 * A consumer process killed with SIGKILL sends no LeaveGroup and no more heartbeats, but its sockets close with it: the
 * coordinator sees its connection close, and one jump of the manual clock past the session timeout removes it, with no
 * wall-time wait. The other member, alive on an open connection, is never removed by the same jump.
 */
class KilledConsumerTest {

    @Test
    void aConsumerKilledWithSigkillIsRemovedByOneJumpAndTheSurvivorGetsItsPartitionsWithoutAWallTimeWait() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().seed(9).clock(ClusterClock.manual(Instant.parse("2026-01-01T00:00:00Z")))
                .topic("orders", 4, 1).start()) {
            Process child = ChildConsumer.start(cluster.bootstrapServers(), "billing", "orders", "classic");
            KafkaConsumer<String, String> survivor = GroupClients.consumer(cluster, "billing", "orders",
                    Map.of("client.id", "survivor", "session.timeout.ms", "45000", "heartbeat.interval.ms", "1000"));
            try {
                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(1)).until(() -> {
                    survivor.poll(Duration.ofMillis(20));
                    ConsumerGroup g = cluster.group("billing");
                    return g.state() == GroupState.STABLE && g.members().size() == 2 && survivor.assignment().size() == 2;
                });
                String childId = memberId(cluster, "child");
                String survivorId = memberId(cluster, "survivor");

                child.destroyForcibly();
                assertThat(child.waitFor(30, TimeUnit.SECONDS)).as("the child JVM died").isTrue();
                // 45 s of cluster time in one call, no wall-time wait: the dead member's session is over, and its
                // closed connection proves it silent; the survivor's session is over in cluster time too.
                cluster.clock().advance(Duration.ofSeconds(45));
                // Well under the 45 s a wall-time session would take, with room for a busy machine.
                await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(1)).until(() -> {
                    survivor.poll(Duration.ofMillis(10));
                    return survivor.assignment().size() == 4;
                });
                ConsumerGroup after = cluster.group("billing");
                assertThat(after.members()).as("%s\n%s", after, cluster.events())
                        .extracting(ConsumerGroup.Member::memberId).containsExactly(survivorId);
                assertThat(cluster.events().events(MemberRemoved.class))
                        .as("timeline:\n%s", cluster.events()).singleElement()
                        .satisfies(m -> assertThat(m.memberId()).isEqualTo(childId))
                        .satisfies(m -> assertThat(m.reason()).contains("connection to the coordinator closed"));
            } finally {
                child.destroyForcibly();
                survivor.close(Duration.ofSeconds(5));
            }
        }
    }

    private static String memberId(KafkaCluster cluster, String clientId) {
        return cluster.group("billing").members().stream().filter(m -> m.clientId().equals(clientId)).findFirst()
                .orElseThrow().memberId();
    }

}
