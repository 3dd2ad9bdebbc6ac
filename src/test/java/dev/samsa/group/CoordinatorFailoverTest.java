package dev.samsa.group;

import static dev.samsa.group.GroupClients.closeQuietly;
import static dev.samsa.group.GroupClients.consumer;
import static dev.samsa.group.GroupClients.produce;
import static dev.samsa.group.GroupClients.values;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.samsa.ConsumerGroup;
import dev.samsa.GroupState;
import dev.samsa.KafkaCluster;
import dev.samsa.PartitionView;
import dev.samsa.event.CoordinatorLoaded;
import dev.samsa.event.GroupStateChanged;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;

/**
 * The group coordinator is the leader of the group's {@code __consumer_offsets} partition. A commit is answered only
 * once that partition replicated it, so the committed offsets and the group itself survive a crash of the
 * coordinator's broker: the new leader loads them and the consumers carry on with it.
 */
class CoordinatorFailoverTest {

    private static final String TOPIC = "orders";
    private static final int OFFSETS_PARTITIONS = 5;

    @Test
    void committedOffsetsSurviveACrashOfTheCoordinatorsBroker() {
        String group = "resume";
        try (KafkaCluster cluster = cluster(31)) {
            List<String> sent = produce(cluster, TOPIC, 6, 10);
            KafkaConsumer<String, String> first = consumer(cluster, group, TOPIC, Map.of("client.id", "first", "max.poll.records", "5"));
            List<String> readBefore = new ArrayList<>();
            Map<TopicPartition, OffsetAndMetadata> committed;
            try {
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(1)).until(() -> {
                    readBefore.addAll(values(first.poll(Duration.ofMillis(50))));
                    return readBefore.size() >= 20;
                });
                first.commitSync();
                committed = new java.util.HashMap<>(first.committed(allPartitions()));
                committed.values().removeIf(java.util.Objects::isNull);
            } finally {
                first.close(Duration.ofSeconds(5));
            }
            assertThat(committed.values().stream().mapToLong(OffsetAndMetadata::offset).sum()).as("%s", committed)
                    .isEqualTo(readBefore.size());

            int coordinator = crashCoordinator(cluster, group);

            KafkaConsumer<String, String> second = consumer(cluster, group, TOPIC, Map.of("client.id", "second"));
            List<String> readAfter = new ArrayList<>();
            try {
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(1)).until(() -> {
                    readAfter.addAll(values(second.poll(Duration.ofMillis(50))));
                    return readAfter.size() >= sent.size() - readBefore.size();
                });
            } finally {
                closeQuietly(second);
            }
            List<String> expected = new ArrayList<>(sent);
            expected.removeAll(readBefore);
            assertThat(readAfter).as("resumed exactly at the committed offsets %s; timeline:\n%s", committed, cluster.events())
                    .containsExactlyInAnyOrderElementsOf(expected);
            assertThat(cluster.events().events(CoordinatorLoaded.class)).as("loaded by the new leader")
                    .anyMatch(l -> l.partition() == offsetsPartition(group) && l.brokerId() != coordinator);
        }
    }

    @Test
    void aStableGroupStaysStableWithItsMembersAfterItsCoordinatorCrashes() {
        String group = "stays";
        try (KafkaCluster cluster = cluster(32)) {
            String range = "org.apache.kafka.clients.consumer.RangeAssignor";
            KafkaConsumer<String, String> a = consumer(cluster, group, TOPIC, Map.of("client.id", "a", "partition.assignment.strategy", range));
            KafkaConsumer<String, String> b = consumer(cluster, group, TOPIC, Map.of("client.id", "b", "partition.assignment.strategy", range));
            try {
                Groups.awaitStable(cluster, group, List.of(a, b));
                ConsumerGroup before = cluster.group(group);
                Set<TopicPartition> ownedByA = Set.copyOf(a.assignment());
                int eventsBefore = cluster.events().events().size();

                crashCoordinator(cluster, group);
                ConsumerGroup loaded = cluster.group(group);
                assertThat(loaded.state()).as("loaded by the new coordinator:\n%s", cluster.events()).isEqualTo(GroupState.STABLE);
                assertThat(loaded.generation()).isEqualTo(before.generation());
                assertThat(loaded.leader()).isEqualTo(before.leader());
                assertThat(loaded.members()).as("members with their assignment").containsExactlyInAnyOrderElementsOf(before.members());

                // The consumers find the new coordinator and heartbeat to it for a couple of seconds of wall time.
                long crashedAt = System.nanoTime();
                await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(10)).until(() -> {
                    a.poll(Duration.ofMillis(10));
                    b.poll(Duration.ofMillis(10));
                    return System.nanoTime() - crashedAt > 2_000_000_000L;
                });
                a.commitSync();
                b.commitSync();

                ConsumerGroup after = cluster.group(group);
                assertThat(after.state()).as("%s\n%s", after, cluster.events()).isEqualTo(GroupState.STABLE);
                assertThat(after.generation()).isEqualTo(before.generation());
                assertThat(after.members()).containsExactlyInAnyOrderElementsOf(before.members());
                assertThat(a.assignment()).isEqualTo(ownedByA);
                assertThat(cluster.events().events().subList(eventsBefore, cluster.events().events().size()))
                        .as("no rebalance after the failover").noneMatch(e -> e.event() instanceof GroupStateChanged c && c.groupId().equals(group));
            } finally {
                closeQuietly(a);
                closeQuietly(b);
            }
        }
    }

    @Test
    void anOffsetCommitIsAnsweredOnlyOnceItsOffsetsPartitionReplicatedIt() {
        String group = "durable";
        try (KafkaCluster cluster = cluster(33)) {
            produce(cluster, TOPIC, 6, 2);
            KafkaConsumer<String, String> c = consumer(cluster, group, TOPIC, Map.of("client.id", "c"));
            try {
                List<String> read = new ArrayList<>();
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(1)).until(() -> {
                    read.addAll(values(c.poll(Duration.ofMillis(50))));
                    return read.size() >= 12;
                });
                int p = offsetsPartition(group);
                PartitionView offsets = cluster.partition("__consumer_offsets", p);
                List<Integer> followers = offsets.replicas().stream().filter(r -> r != offsets.leader()).toList();
                followers.forEach(f -> cluster.faults().pauseReplication("__consumer_offsets", p, f));

                // Only the coordinator's own replica has the offsets: no answer yet.
                assertThatThrownBy(() -> c.commitSync(Duration.ofMillis(1000))).isInstanceOf(TimeoutException.class);
                assertThat(cluster.partition("__consumer_offsets", p).highWatermark())
                        .isLessThan(cluster.partition("__consumer_offsets", p).logEndOffset(offsets.leader()));
                // Not replicated, so not committed: the group still has no offsets (Kafka reads as of the HW).
                assertThat(cluster.group(group).committed()).as("offsets before replication").isEmpty();

                followers.forEach(f -> cluster.faults().resumeReplication("__consumer_offsets", p, f));
                c.commitSync(Duration.ofSeconds(10));
                assertThat(c.committed(allPartitions()).values()).extracting(OffsetAndMetadata::offset).containsOnly(2L);
            } finally {
                closeQuietly(c);
            }
        }
    }

    private static KafkaCluster cluster(long seed) {
        return KafkaCluster.builder().brokers(3).seed(seed).brokerConfig("offsets.topic.num.partitions", Integer.toString(OFFSETS_PARTITIONS))
                .topic(TOPIC, 6, 3).start();
    }

    /** Kafka's rule: the group's offsets partition; its leader is the group's coordinator. */
    private static int offsetsPartition(String group) {
        return Utils.abs(group.hashCode()) % OFFSETS_PARTITIONS;
    }

    /** Crashes the coordinator's broker and waits for another replica to lead its offsets partition; the old id. */
    private static int crashCoordinator(KafkaCluster cluster, String group) {
        int p = offsetsPartition(group);
        int coordinator = cluster.partition("__consumer_offsets", p).leader();
        assertThat(coordinator).as("coordinator of %s", group).isPositive();
        cluster.broker(coordinator).crash();
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            int leader = cluster.partition("__consumer_offsets", p).leader();
            return leader > 0 && leader != coordinator;
        });
        return coordinator;
    }

    private static Set<TopicPartition> allPartitions() {
        return IntStream.range(0, 6).mapToObj(p -> new TopicPartition(TOPIC, p)).collect(Collectors.toSet());
    }
}
