package dev.samsa.group;

import static dev.samsa.group.GroupClients.closeQuietly;
import static dev.samsa.group.GroupClients.consumer;
import static dev.samsa.group.GroupClients.produce;
import static dev.samsa.group.GroupClients.values;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.samsa.GroupState;
import dev.samsa.KafkaCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ConsumerGroupListing;
import org.apache.kafka.clients.admin.ListConsumerGroupsOptions;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.MemberToRemove;
import org.apache.kafka.clients.admin.RemoveMembersFromConsumerGroupOptions;
import org.apache.kafka.clients.admin.RemoveMembersFromConsumerGroupResult;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.GroupNotEmptyException;
import org.apache.kafka.common.errors.GroupSubscribedToTopicException;
import org.apache.kafka.common.errors.UnknownMemberIdException;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;

/**
 * The Admin client's consumer-group calls against a Stable group of two static members ("active", subscribed to
 * orders, with an extra offset on audit) and an Empty group ("idle"), answers and errors as Kafka gives them.
 */
class GroupAdminTest {

    private static final String ORDERS = "orders";
    private static final String AUDIT = "audit";
    private static final TopicPartition AUDIT_0 = new TopicPartition(AUDIT, 0);

    @Test
    void consumerGroupAdminCallsAnswerAsKafkaDoes() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(26).brokerConfig("offsets.topic.num.partitions", "5")
                .topic(ORDERS, 6, 3).topic(AUDIT, 1, 3).start();
             Admin admin = Admin.create(cluster.adminConfig())) {
            produce(cluster, ORDERS, 6, 2);
            produce(cluster, AUDIT, 1, 4);

            // "idle": read everything, committed, left: Empty with offsets.
            KafkaConsumer<String, String> idle = consumer(cluster, "idle", ORDERS, Map.of("client.id", "idle"));
            try {
                readAll(idle, 12);
                idle.commitSync();
            } finally {
                idle.close(Duration.ofSeconds(5));
            }

            // "active": two static members, Stable; they commit orders and, by hand, audit-0 (which they do not subscribe to).
            KafkaConsumer<String, String> one = staticConsumer(cluster, "instance-1");
            KafkaConsumer<String, String> two = staticConsumer(cluster, "instance-2");
            try {
                Groups.awaitStable(cluster, "active", List.of(one, two));
                TopicPartition orders0 = new TopicPartition(ORDERS, 0);
                one.commitSync(Map.of(AUDIT_0, new OffsetAndMetadata(3), orders0, new OffsetAndMetadata(1)));

                // listConsumerGroups, with and without a state filter
                assertThat(admin.listConsumerGroups().all().get()).extracting(ConsumerGroupListing::groupId, l -> l.groupState().orElseThrow())
                        .containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple("idle", org.apache.kafka.common.GroupState.EMPTY),
                                org.assertj.core.groups.Tuple.tuple("active", org.apache.kafka.common.GroupState.STABLE));
                assertThat(admin.listConsumerGroups(new ListConsumerGroupsOptions().inGroupStates(Set.of(org.apache.kafka.common.GroupState.STABLE)))
                        .all().get()).extracting(ConsumerGroupListing::groupId).containsExactly("active");
                assertThat(admin.listConsumerGroups(new ListConsumerGroupsOptions().inGroupStates(Set.of(org.apache.kafka.common.GroupState.EMPTY)))
                        .all().get()).extracting(ConsumerGroupListing::groupId).containsExactly("idle");

                // describeConsumerGroups
                ConsumerGroupDescription active = admin.describeConsumerGroups(List.of("active")).all().get().get("active");
                assertThat(active.groupState()).isEqualTo(org.apache.kafka.common.GroupState.STABLE);
                assertThat(active.partitionAssignor()).isEqualTo("range");
                assertThat(active.isSimpleConsumerGroup()).isFalse();
                assertThat(active.coordinator().id()).isEqualTo(cluster.partition("__consumer_offsets", Utils.abs("active".hashCode()) % 5).leader());
                assertThat(active.members()).extracting(m -> m.groupInstanceId().orElseThrow()).containsExactlyInAnyOrder("instance-1", "instance-2");
                assertThat(active.members().stream().flatMap(m -> m.assignment().topicPartitions().stream()).collect(Collectors.toSet()))
                        .isEqualTo(partitions(ORDERS, 6));
                ConsumerGroupDescription idleDescribed = admin.describeConsumerGroups(List.of("idle")).all().get().get("idle");
                assertThat(idleDescribed.groupState()).isEqualTo(org.apache.kafka.common.GroupState.EMPTY);
                assertThat(idleDescribed.members()).isEmpty();
                assertFails(admin.describeConsumerGroups(List.of("missing")).all(), GroupIdNotFoundException.class);

                // listConsumerGroupOffsets
                Map<TopicPartition, OffsetAndMetadata> idleOffsets = admin.listConsumerGroupOffsets("idle").partitionsToOffsetAndMetadata().get();
                assertThat(idleOffsets.keySet()).isEqualTo(partitions(ORDERS, 6));
                assertThat(idleOffsets.values()).extracting(OffsetAndMetadata::offset).containsOnly(2L);
                assertThat(admin.listConsumerGroupOffsets("active").partitionsToOffsetAndMetadata().get())
                        .containsOnly(Map.entry(AUDIT_0, new OffsetAndMetadata(3)), Map.entry(orders0, new OffsetAndMetadata(1)));
                assertThat(admin.listConsumerGroupOffsets("missing").partitionsToOffsetAndMetadata().get()).isEmpty();

                // alterConsumerGroupOffsets: an Empty group takes them; a group with members refuses a commit from outside
                admin.alterConsumerGroupOffsets("idle", Map.of(orders0, new OffsetAndMetadata(1, "rewound"))).all().get();
                assertThat(admin.listConsumerGroupOffsets("idle").partitionsToOffsetAndMetadata().get().get(orders0))
                        .isEqualTo(new OffsetAndMetadata(1, "rewound"));
                assertFails(admin.alterConsumerGroupOffsets("active", Map.of(orders0, new OffsetAndMetadata(0))).all(),
                        UnknownMemberIdException.class);

                // deleteConsumerGroupOffsets: a subscribed topic of a live group is refused per partition, an
                // unsubscribed one is deleted; an Empty group loses what is asked; an unknown group is an error
                assertFails(admin.deleteConsumerGroupOffsets("active", Set.of(orders0)).all(), GroupSubscribedToTopicException.class);
                assertFails(admin.deleteConsumerGroupOffsets("active", Set.of(orders0)).partitionResult(orders0),
                        GroupSubscribedToTopicException.class);
                admin.deleteConsumerGroupOffsets("active", Set.of(AUDIT_0)).all().get();
                assertThat(admin.listConsumerGroupOffsets("active").partitionsToOffsetAndMetadata().get()).doesNotContainKey(AUDIT_0)
                        .containsKey(orders0);
                admin.deleteConsumerGroupOffsets("idle", Set.of(orders0)).all().get();
                assertThat(admin.listConsumerGroupOffsets("idle").partitionsToOffsetAndMetadata().get()).doesNotContainKey(orders0).hasSize(5);
                assertFails(admin.deleteConsumerGroupOffsets("missing", Set.of(orders0)).all(), GroupIdNotFoundException.class);

                // deleteConsumerGroups: refused while members exist, unknown groups are errors, Empty groups go
                assertFails(admin.deleteConsumerGroups(List.of("active")).all(), GroupNotEmptyException.class);
                assertFails(admin.deleteConsumerGroups(List.of("missing")).all(), GroupIdNotFoundException.class);
                admin.deleteConsumerGroups(List.of("idle")).all().get();
                assertThat(admin.listConsumerGroupOffsets("idle").partitionsToOffsetAndMetadata().get()).isEmpty();
                assertFails(admin.describeConsumerGroups(List.of("idle")).all(), GroupIdNotFoundException.class);
                assertThat(admin.listConsumerGroups().all().get()).extracting(ConsumerGroupListing::groupId).containsExactly("active");
            } finally {
                // Static members send no LeaveGroup when they close: they stay in the group until removed.
                closeQuietly(one);
                closeQuietly(two);
            }
            assertThat(cluster.group("active").members()).hasSize(2);

            // removeMembersFromConsumerGroup: by instance id; an unknown one fails alone
            MemberToRemove first = new MemberToRemove("instance-1");
            MemberToRemove unknown = new MemberToRemove("instance-x");
            RemoveMembersFromConsumerGroupResult removed = admin.removeMembersFromConsumerGroup("active",
                    new RemoveMembersFromConsumerGroupOptions(List.of(first, unknown)));
            removed.memberResult(first).get();
            assertFails(removed.memberResult(unknown), UnknownMemberIdException.class);
            assertThat(cluster.group("active").members()).extracting(m -> m.groupInstanceId()).containsExactly("instance-2");
            // Without members named, every member left is removed; the group is then Empty and can be deleted.
            admin.removeMembersFromConsumerGroup("active", new RemoveMembersFromConsumerGroupOptions()).all().get();
            assertThat(cluster.group("active").state()).as("%s", cluster.events()).isEqualTo(GroupState.EMPTY);
            admin.deleteConsumerGroups(List.of("active")).all().get();
            assertThat(admin.listConsumerGroups().all().get()).isEmpty();
            assertThat(cluster.group("active").state()).isEqualTo(GroupState.DEAD);
            assertThat(describeMembers(admin, "active")).isNull();
        }
    }

    private static KafkaConsumer<String, String> staticConsumer(KafkaCluster cluster, String instanceId) {
        return consumer(cluster, "active", ORDERS, Map.of("group.instance.id", instanceId, "client.id", instanceId,
                "session.timeout.ms", "30000", "partition.assignment.strategy", "org.apache.kafka.clients.consumer.RangeAssignor"));
    }

    private static void readAll(KafkaConsumer<String, String> consumer, int count) {
        List<String> read = new ArrayList<>();
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(1)).until(() -> {
            read.addAll(values(consumer.poll(Duration.ofMillis(50))));
            return read.size() >= count;
        });
    }

    private static Set<TopicPartition> partitions(String topic, int count) {
        return IntStream.range(0, count).mapToObj(p -> new TopicPartition(topic, p)).collect(Collectors.toSet());
    }

    private static List<MemberDescription> describeMembers(Admin admin, String group) throws InterruptedException {
        try {
            return List.copyOf(admin.describeConsumerGroups(List.of(group)).all().get().get(group).members());
        } catch (ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(GroupIdNotFoundException.class);
            return null;
        }
    }

    private static void assertFails(KafkaFuture<?> future, Class<? extends Throwable> error) {
        assertThatThrownBy(future::get).isInstanceOf(ExecutionException.class).cause().isInstanceOf(error);
    }
}
