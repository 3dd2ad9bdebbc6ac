package dev.samsa.group;

import static dev.samsa.group.GroupClients.closeQuietly;
import static dev.samsa.group.GroupClients.consumer;
import static org.assertj.core.api.Assertions.assertThat;

import dev.samsa.ConsumerGroup;
import dev.samsa.GroupState;
import dev.samsa.KafkaCluster;
import dev.samsa.event.GroupStateChanged;
import dev.samsa.event.StaticMemberReplaced;
import dev.samsa.event.TimedEvent;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** KIP-345: a static member that restarts within its session timeout takes its place back without a rebalance. */
class StaticMembershipTest {

    private static final String TOPIC = "orders";
    private static final String GROUP = "static-billing";

    @Test
    void aStaticMemberRestartedWithinTheSessionTimeoutKeepsItsPartitionsWithoutARebalance() {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(23).topic(TOPIC, 6, 3).start()) {
            KafkaConsumer<String, String> first = staticConsumer(cluster, "instance-1");
            KafkaConsumer<String, String> second = staticConsumer(cluster, "instance-2");
            KafkaConsumer<String, String> restarted = null;
            try {
                Groups.awaitStable(cluster, GROUP, List.of(first, second));
                ConsumerGroup before = cluster.group(GROUP);
                Set<TopicPartition> ownedBefore = Set.copyOf(first.assignment());
                String oldMemberId = memberOf(before, "instance-1").memberId();
                int eventsBefore = cluster.events().events().size();

                // The process restarts: a static member sends no LeaveGroup when it closes, and the new process joins
                // with the same group.instance.id well within session.timeout.ms.
                first.close(Duration.ofSeconds(5));
                assertThat(cluster.group(GROUP).members()).as("the closed static member is still in the group").hasSize(2);
                restarted = staticConsumer(cluster, "instance-1");
                Groups.awaitStable(cluster, GROUP, List.of(restarted, second));

                ConsumerGroup after = cluster.group(GROUP);
                List<TimedEvent> since = cluster.events().events().subList(eventsBefore, cluster.events().events().size());
                assertThat(restarted.assignment()).as("timeline:\n%s", cluster.events()).isEqualTo(ownedBefore);
                assertThat(after.state()).isEqualTo(GroupState.STABLE);
                assertThat(after.generation()).as("no new generation").isEqualTo(before.generation());
                assertThat(memberOf(after, "instance-1").memberId()).as("a new member id for the new process").isNotEqualTo(oldMemberId);
                assertThat(memberOf(after, "instance-1").assignment()).isEqualTo(memberOf(before, "instance-1").assignment());
                assertThat(since).as("events since the restart").noneMatch(e -> e.event() instanceof GroupStateChanged c
                        && c.groupId().equals(GROUP) && c.state().equals("PreparingRebalance"));
                assertThat(since).anyMatch(e -> e.event() instanceof StaticMemberReplaced r && r.groupInstanceId().equals("instance-1")
                        && r.previousMemberId().equals(oldMemberId));
            } finally {
                closeQuietly(first);
                closeQuietly(second);
                if (restarted != null) {
                    closeQuietly(restarted);
                }
            }
        }
    }

    private static KafkaConsumer<String, String> staticConsumer(KafkaCluster cluster, String instanceId) {
        return consumer(cluster, GROUP, TOPIC, Map.of("group.instance.id", instanceId, "client.id", instanceId,
                "session.timeout.ms", "30000", "partition.assignment.strategy", "org.apache.kafka.clients.consumer.RangeAssignor"));
    }

    private static ConsumerGroup.Member memberOf(ConsumerGroup group, String instanceId) {
        return group.members().stream().filter(m -> instanceId.equals(m.groupInstanceId())).findFirst()
                .orElseThrow(() -> new AssertionError("no member " + instanceId + " in " + group));
    }
}
