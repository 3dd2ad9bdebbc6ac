package dev.samsa.group.modern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.samsa.ConsumerGroup;
import dev.samsa.GroupState;
import dev.samsa.KafkaCluster;
import dev.samsa.RawConnection;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ConsumerGroupHeartbeatRequest;
import org.apache.kafka.common.requests.ConsumerGroupHeartbeatResponse;
import org.apache.kafka.common.requests.HeartbeatRequest;
import org.apache.kafka.common.requests.HeartbeatResponse;
import org.apache.kafka.common.requests.JoinGroupRequest;
import org.apache.kafka.common.requests.JoinGroupResponse;
import org.apache.kafka.common.requests.SyncGroupRequest;
import org.apache.kafka.common.requests.SyncGroupResponse;
import org.junit.jupiter.api.Test;

/**
 * Mixed groups, as Kafka 4.1's {@code classicGroupJoinToConsumerGroup}: a classic consumer (JoinGroup/SyncGroup/
 * Heartbeat) joining a group that runs the consumer protocol gets its partitions from the server-side assignor, its
 * generation is its member epoch, and it shares the partitions with the consumer-protocol members, never owning one
 * another member still holds.
 */
class MixedGroupTest {

    private static final String GROUP = "mixed";
    private static final String TOPIC = "orders";

    @Test
    void aClassicConsumerAndAConsumerProtocolConsumerSplitTheGroupsPartitions() {
        try (KafkaCluster cluster = ModernConsumers.fastHeartbeats(KafkaCluster.builder().brokers(3).seed(12).topic(TOPIC, 6, 3)).start()) {
            ModernConsumers.Ledger ledger = new ModernConsumers.Ledger();
            KafkaConsumer<String, String> modern = ModernConsumers.consumer(cluster, GROUP, Map.of("client.id", "modern"));
            KafkaConsumer<String, String> classic = classicConsumer(cluster);
            List<KafkaConsumer<String, String>> both = List.of(modern, classic);
            try {
                modern.subscribe(List.of(TOPIC), ledger.listener("modern"));
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(1)).until(() -> {
                    ModernConsumers.pollAll(List.of(modern));
                    return modern.assignment().size() == 6;
                });
                classic.subscribe(List.of(TOPIC), ledger.listener("classic"));
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(1)).until(() -> {
                    ModernConsumers.pollAll(both);
                    return modern.assignment().size() == 3 && classic.assignment().size() == 3
                            && cluster.group(GROUP).state() == GroupState.STABLE;
                });
                Set<TopicPartition> overlap = new HashSet<>(modern.assignment());
                overlap.retainAll(classic.assignment());
                assertThat(overlap).isEmpty();
                assertThat(ModernConsumers.union(both)).containsExactlyInAnyOrderElementsOf(ModernConsumers.partitions(TOPIC, 6));
                assertThat(ledger.violations()).as("%s", cluster.events()).isEmpty();
                ConsumerGroup group = cluster.group(GROUP);
                assertThat(group.groupType()).isEqualTo("consumer");
                assertThat(group.members()).extracting(ConsumerGroup.Member::clientId).containsExactlyInAnyOrder("modern", "classic");

                // The classic member leaves with LeaveGroup: the consumer-protocol member takes everything back.
                classic.close(Duration.ofSeconds(5));
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(1)).until(() -> {
                    ModernConsumers.pollAll(List.of(modern));
                    return modern.assignment().size() == 6;
                });
                assertThat(cluster.group(GROUP).members()).extracting(ConsumerGroup.Member::clientId).containsExactly("modern");
                assertThat(ledger.violations()).isEmpty();
            } finally {
                modern.close(Duration.ofSeconds(5));
                classic.close(Duration.ofSeconds(5));
            }
        }
    }

    @Test
    void aStableClassicGroupIsUpgradedOnlineWhenAConsumerProtocolMemberJoins() {
        try (KafkaCluster cluster = ModernConsumers.fastHeartbeats(KafkaCluster.builder().brokers(3).seed(14).topic(TOPIC, 6, 3)).start()) {
            ModernConsumers.Ledger ledger = new ModernConsumers.Ledger();
            KafkaConsumer<String, String> classic = classicConsumer(cluster);
            KafkaConsumer<String, String> modern = ModernConsumers.consumer(cluster, GROUP, Map.of("client.id", "modern"));
            List<KafkaConsumer<String, String>> both = List.of(modern, classic);
            try {
                classic.subscribe(List.of(TOPIC), ledger.listener("classic"));
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(1)).until(() -> {
                    ModernConsumers.pollAll(List.of(classic));
                    return classic.assignment().size() == 6 && cluster.group(GROUP).state() == GroupState.STABLE;
                });
                assertThat(cluster.group(GROUP).groupType()).isEqualTo("classic");

                modern.subscribe(List.of(TOPIC), ledger.listener("modern"));
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(1)).until(() -> {
                    ModernConsumers.pollAll(both);
                    return modern.assignment().size() == 3 && classic.assignment().size() == 3
                            && cluster.group(GROUP).state() == GroupState.STABLE;
                });
                assertThat(ModernConsumers.union(both)).containsExactlyInAnyOrderElementsOf(ModernConsumers.partitions(TOPIC, 6));
                assertThat(ledger.violations()).as("%s", cluster.events()).isEmpty();
                ConsumerGroup group = cluster.group(GROUP);
                assertThat(group.groupType()).isEqualTo("consumer");
                assertThat(group.members()).extracting(ConsumerGroup.Member::clientId).containsExactlyInAnyOrder("modern", "classic");
                assertThat(cluster.events().toString()).contains("upgraded to a consumer group");
            } finally {
                modern.close(Duration.ofSeconds(5));
                classic.close(Duration.ofSeconds(5));
            }
        }
    }

    @Test
    void withTheMigrationPolicyDisabledAClassicGroupIsNotUpgraded() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(1).seed(15).brokerConfig("group.consumer.migration.policy", "disabled")
                .topic(TOPIC, 2, 1).start();
             RawConnection raw = RawConnection.connect(cluster.broker(1))) {
            KafkaConsumer<String, String> classic = classicConsumer(cluster);
            try {
                classic.subscribe(List.of(TOPIC));
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(1)).until(() -> {
                    ModernConsumers.pollAll(List.of(classic));
                    return classic.assignment().size() == 2 && cluster.group(GROUP).state() == GroupState.STABLE;
                });
                ConsumerGroupHeartbeatResponse refused = raw.send(new ConsumerGroupHeartbeatRequest.Builder(
                        new ConsumerGroupHeartbeatRequestData().setGroupId(GROUP).setMemberId(Uuid.randomUuid().toString())
                                .setMemberEpoch(0).setRebalanceTimeoutMs(30_000).setSubscribedTopicNames(List.of(TOPIC))
                                .setTopicPartitions(List.of())).build((short) 0));
                assertThat(refused.data().errorCode()).isEqualTo(Errors.GROUP_ID_NOT_FOUND.code());
                assertThat(refused.data().errorMessage()).contains("online upgrade is disabled");
                assertThat(cluster.group(GROUP).groupType()).isEqualTo("classic");
            } finally {
                classic.close(Duration.ofSeconds(5));
            }
        }
    }

    private static KafkaConsumer<String, String> classicConsumer(KafkaCluster cluster) {
        Map<String, Object> config = cluster.consumerConfig(GROUP);
        config.put("client.id", "classic");
        config.put("enable.auto.commit", "false");
        config.put("heartbeat.interval.ms", "200");
        return new KafkaConsumer<>(config);
    }

    @Test
    void theClassicMembersJoinSyncAndHeartbeatAnswersAreKafkas() throws Exception {
        try (KafkaCluster cluster = ModernConsumers.fastHeartbeats(KafkaCluster.builder().brokers(1).seed(13).topic(TOPIC, 6, 1)).start();
             RawConnection raw = RawConnection.connect(cluster.broker(1))) {
            KafkaConsumer<String, String> modern = ModernConsumers.consumer(cluster, GROUP, Map.of("client.id", "modern"));
            try {
                modern.subscribe(List.of(TOPIC));
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(1)).until(() -> {
                    ModernConsumers.pollAll(List.of(modern));
                    return modern.assignment().size() == 6;
                });
                int groupEpoch = cluster.group(GROUP).generation();

                JoinGroupResponse required = raw.send(join(""));
                assertThat(required.error()).isEqualTo(Errors.MEMBER_ID_REQUIRED);
                String memberId = required.data().memberId();
                assertThat(memberId).isNotEmpty();

                JoinGroupResponse joined = raw.send(join(memberId));
                assertThat(joined.error()).isEqualTo(Errors.NONE);
                assertThat(joined.data().memberId()).isEqualTo(memberId);
                assertThat(joined.data().generationId()).as("the member epoch: the group epoch its join moved to")
                        .isEqualTo(groupEpoch + 1);
                assertThat(joined.data().protocolType()).isEqualTo("consumer");
                assertThat(joined.data().protocolName()).isEqualTo("range");
                assertThat(joined.data().leader()).isEmpty();
                assertThat(joined.data().members()).isEmpty();
                assertThat(joined.data().skipAssignment()).isFalse();
                int generation = joined.data().generationId();

                // Its partitions are still the consumer-protocol member's: it syncs with none of them yet.
                SyncGroupResponse firstSync = raw.send(sync(memberId, generation, "range"));
                assertThat(firstSync.error()).isEqualTo(Errors.NONE);
                assertThat(firstSync.data().protocolType()).isEqualTo("consumer");
                assertThat(firstSync.data().protocolName()).isEqualTo("range");
                assertThat(assigned(firstSync)).isEmpty();
                assertThat(raw.<SyncGroupResponse>send(sync(memberId, generation, "roundrobin")).error())
                        .isEqualTo(Errors.INCONSISTENT_GROUP_PROTOCOL);
                assertThat(raw.<HeartbeatResponse>send(heartbeat(memberId, generation + 7)).error())
                        .isEqualTo(Errors.ILLEGAL_GENERATION);

                // Once the consumer-protocol member has revoked them, the heartbeat calls the classic member back.
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(1)).until(() -> {
                    ModernConsumers.pollAll(List.of(modern));
                    return modern.assignment().size() == 3
                            && raw.<HeartbeatResponse>send(heartbeat(memberId, generation)).error() == Errors.REBALANCE_IN_PROGRESS;
                });
                JoinGroupResponse rejoined = raw.send(join(memberId));
                assertThat(rejoined.error()).isEqualTo(Errors.NONE);
                SyncGroupResponse synced = raw.send(sync(memberId, rejoined.data().generationId(), "range"));
                assertThat(synced.error()).isEqualTo(Errors.NONE);
                Set<TopicPartition> mine = new HashSet<>(assigned(synced));
                assertThat(mine).hasSize(3).doesNotContainAnyElementsOf(modern.assignment());
                assertThat(raw.<HeartbeatResponse>send(heartbeat(memberId, rejoined.data().generationId())).error())
                        .isEqualTo(Errors.NONE);
            } finally {
                modern.close(Duration.ofSeconds(5));
            }
        }
    }

    private static JoinGroupRequest join(String memberId) {
        ByteBuffer subscription = ConsumerProtocol.serializeSubscription(new ConsumerPartitionAssignor.Subscription(List.of(TOPIC)));
        byte[] metadata = new byte[subscription.remaining()];
        subscription.get(metadata);
        JoinGroupRequestData data = new JoinGroupRequestData().setGroupId(GROUP).setMemberId(memberId)
                .setProtocolType("consumer").setSessionTimeoutMs(30_000).setRebalanceTimeoutMs(30_000);
        data.protocols().add(new JoinGroupRequestData.JoinGroupRequestProtocol().setName("range").setMetadata(metadata));
        data.protocols().add(new JoinGroupRequestData.JoinGroupRequestProtocol().setName("roundrobin").setMetadata(metadata));
        return new JoinGroupRequest.Builder(data).build((short) 9);
    }

    private static SyncGroupRequest sync(String memberId, int generation, String protocolName) {
        return new SyncGroupRequest.Builder(new SyncGroupRequestData().setGroupId(GROUP).setMemberId(memberId)
                .setGenerationId(generation).setProtocolType("consumer").setProtocolName(protocolName)).build((short) 5);
    }

    private static HeartbeatRequest heartbeat(String memberId, int generation) {
        return new HeartbeatRequest.Builder(new HeartbeatRequestData().setGroupId(GROUP).setMemberId(memberId)
                .setGenerationId(generation)).build((short) 4);
    }

    private static List<TopicPartition> assigned(SyncGroupResponse response) {
        return ConsumerProtocol.deserializeAssignment(ByteBuffer.wrap(response.data().assignment())).partitions();
    }
}
