package dev.samsa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.samsa.time.ClusterClock;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.FindCoordinatorResponse;
import org.apache.kafka.common.requests.JoinGroupRequest;
import org.apache.kafka.common.requests.JoinGroupResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.SyncGroupRequest;
import org.apache.kafka.common.requests.SyncGroupResponse;
import org.junit.jupiter.api.Test;

/**
 * B14 of the fuzzer's findings: when a group's offsets partition moves to another broker, the old coordinator unloads
 * the shard: a JoinGroup parked there is answered NOT_COORDINATOR at once, and none of the shard's heartbeat, join or
 * sync timers runs on the old broker afterwards (no internal error, however far the clock goes).
 */
class CoordinatorMoveTest {

    private static final String GROUP = "moving";

    @Test
    void movingTheOffsetsPartitionUnderARebalancingGroupAnswersParkedJoinsAndStopsTheOldTimers() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(14)
                .clock(ClusterClock.manual(Instant.parse("2026-01-01T00:00:00Z")))
                .brokerConfig("offsets.topic.num.partitions", "1")
                .brokerConfig("offsets.topic.replication.factor", "1")
                .topic("moving-topic", 2, 1)
                .start();
             Admin admin = Admin.create(cluster.adminConfig())) {
            int oldCoordinator = coordinator(cluster);
            try (RawConnection first = RawConnection.connect(cluster.broker(oldCoordinator));
                 RawConnection second = RawConnection.connect(cluster.broker(oldCoordinator))) {
                JoinGroupResponse joined = first.send(join(""));
                assertThat(joined.error()).isEqualTo(Errors.NONE);
                String leader = joined.data().memberId();
                SyncGroupRequestData sync = new SyncGroupRequestData().setGroupId(GROUP).setMemberId(leader)
                        .setGenerationId(joined.data().generationId());
                sync.assignments().add(new SyncGroupRequestData.SyncGroupRequestAssignment().setMemberId(leader)
                        .setAssignment(new byte[0]));
                SyncGroupResponse synced = first.send(new SyncGroupRequest.Builder(sync).build((short) 3));
                assertThat(synced.error()).isEqualTo(Errors.NONE);

                // A second member's join parks: the group waits for the leader to rejoin.
                JoinGroupRequest parked = join("");
                RequestHeader parkedHeader = second.nextHeader(parked.apiKey(), parked.version());
                second.writeFrame(parked.serializeWithHeader(parkedHeader));
                await().atMost(Duration.ofSeconds(10)).until(() -> cluster.group(GROUP).state() == GroupState.PREPARING_REBALANCE);

                int newCoordinator = oldCoordinator % 3 + 1;
                admin.alterPartitionReassignments(Map.of(new TopicPartition("__consumer_offsets", 0),
                        Optional.of(new NewPartitionReassignment(List.of(newCoordinator))))).all().get();
                JoinGroupResponse answered = second.receive(parkedHeader);
                assertThat(answered.error()).isEqualTo(Errors.NOT_COORDINATOR);
                await().atMost(Duration.ofSeconds(10)).until(() -> coordinator(cluster) == newCoordinator);
            }
            // Every session, rebalance and sync deadline of the old shard passes.
            cluster.clock().advance(Duration.ofMinutes(10));
            assertThat(cluster.internalErrors()).isEmpty();
            assertThat(cluster.events().toString()).doesNotContain("Exception");
        }
    }

    /** The leader has its assignment to send (CompletingRebalance, the sync timer armed) when the partition moves. */
    @Test
    void movingTheOffsetsPartitionWhileTheGroupAwaitsItsAssignmentStopsTheOldSyncTimer() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(15)
                .clock(ClusterClock.manual(Instant.parse("2026-01-01T00:00:00Z")))
                .brokerConfig("offsets.topic.num.partitions", "1")
                .brokerConfig("offsets.topic.replication.factor", "1")
                .start();
             Admin admin = Admin.create(cluster.adminConfig())) {
            int oldCoordinator = coordinator(cluster);
            try (RawConnection first = RawConnection.connect(cluster.broker(oldCoordinator))) {
                JoinGroupResponse joined = first.send(join(""));
                assertThat(joined.error()).isEqualTo(Errors.NONE);
                assertThat(cluster.group(GROUP).state()).isEqualTo(GroupState.COMPLETING_REBALANCE);
                int newCoordinator = oldCoordinator % 3 + 1;
                admin.alterPartitionReassignments(Map.of(new TopicPartition("__consumer_offsets", 0),
                        Optional.of(new NewPartitionReassignment(List.of(newCoordinator))))).all().get();
                await().atMost(Duration.ofSeconds(10)).until(() -> coordinator(cluster) == newCoordinator);
                SyncGroupRequestData sync = new SyncGroupRequestData().setGroupId(GROUP).setMemberId(joined.data().memberId())
                        .setGenerationId(joined.data().generationId());
                SyncGroupResponse late = first.send(new SyncGroupRequest.Builder(sync).build((short) 3));
                assertThat(late.error()).isEqualTo(Errors.NOT_COORDINATOR);
            }
            cluster.clock().advance(Duration.ofMinutes(10));
            assertThat(cluster.internalErrors()).isEmpty();
        }
    }

    private static JoinGroupRequest join(String memberId) {
        ByteBuffer subscription = ConsumerProtocol.serializeSubscription(new Subscription(List.of("moving-topic")));
        byte[] metadata = new byte[subscription.remaining()];
        subscription.get(metadata);
        JoinGroupRequestData data = new JoinGroupRequestData().setGroupId(GROUP).setMemberId(memberId)
                .setProtocolType("consumer").setSessionTimeoutMs(10_000).setRebalanceTimeoutMs(30_000);
        data.protocols().add(new JoinGroupRequestData.JoinGroupRequestProtocol().setName("range").setMetadata(metadata));
        return new JoinGroupRequest.Builder(data).build((short) 3);
    }

    private static int coordinator(KafkaCluster cluster) throws Exception {
        try (RawConnection connection = RawConnection.connect(cluster.broker(1))) {
            FindCoordinatorRequestData data = new FindCoordinatorRequestData().setKeyType((byte) 0).setKey(GROUP);
            FindCoordinatorResponse response = connection.send(new FindCoordinatorRequest.Builder(data).build((short) 3));
            return response.error() == Errors.NONE ? response.data().nodeId() : -1;
        }
    }
}
