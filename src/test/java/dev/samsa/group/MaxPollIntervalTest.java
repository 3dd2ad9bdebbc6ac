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
import dev.samsa.event.MemberJoined;
import dev.samsa.event.MemberRemoved;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * max.poll.interval.ms is the consumer's own timer: a member that stops calling poll() for longer leaves the group
 * (its heartbeat thread sends LeaveGroup), its late commit fails, and what it processed without committing is
 * delivered again to the member that takes its partitions over.
 */
class MaxPollIntervalTest {

    private static final String TOPIC = "orders";
    private static final String GROUP = "billing";

    @Test
    void aMemberThatStopsPollingIsRemovedItsCommitFailsAndItsUncommittedRecordsAreDeliveredAgain() {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(21).topic(TOPIC, 6, 3).start()) {
            // Written before the group forms: producing takes seconds on a busy machine, longer than the slow
            // member's poll interval, and no member may stop polling before the test means it to.
            List<String> sent = produce(cluster, TOPIC, 6, 10);
            String range = "org.apache.kafka.clients.consumer.RangeAssignor";
            KafkaConsumer<String, String> slow = consumer(cluster, GROUP, TOPIC, Map.of("client.id", "slow",
                    "max.poll.interval.ms", "1500", "max.poll.records", "5", "partition.assignment.strategy", range));
            KafkaConsumer<String, String> steady = consumer(cluster, GROUP, TOPIC, Map.of("client.id", "steady",
                    "max.poll.interval.ms", "60000", "max.poll.records", "5", "partition.assignment.strategy", range));
            try {
                // Paused while the group settles, so the polls that form it read nothing.
                AtomicBoolean settling = new AtomicBoolean(true);
                subscribePausedWhile(settling, slow);
                subscribePausedWhile(settling, steady);
                Groups.awaitStable(cluster, GROUP, List.of(slow, steady));
                int generation = cluster.group(GROUP).generation();
                settling.set(false);
                slow.resume(slow.assignment());
                steady.resume(steady.assignment());

                // The slow member processes one batch and commits it, then processes a second batch and, before it
                // can commit, gets stuck (a slow downstream call): no poll() for longer than max.poll.interval.ms.
                List<String> committedBySlow = pollBatch(slow);
                slow.commitSync();
                List<String> uncommittedBySlow = pollBatch(slow);

                // Meanwhile the steady member processes and commits after every poll, until the slow one is gone and
                // the steady one has read everything the slow one had not committed.
                List<String> readBySteady = new ArrayList<>();
                int expected = sent.size() - committedBySlow.size();
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(1))
                        .alias("the steady member takes over and reads the rest").until(() -> {
                    ConsumerRecords<String, String> records = steady.poll(Duration.ofMillis(50));
                    if (!records.isEmpty()) {
                        readBySteady.addAll(values(records));
                        steady.commitSync();
                    }
                    ConsumerGroup g = cluster.group(GROUP);
                    return g.state() == GroupState.STABLE && g.members().size() == 1 && readBySteady.size() >= expected;
                });

                String slowId = memberIdRemoved(cluster);
                assertThat(cluster.events().events(MemberRemoved.class)).filteredOn(m -> m.memberId().equals(slowId))
                        .as("timeline:\n%s", cluster.events()).singleElement()
                        .satisfies(m -> assertThat(m.reason()).contains("left").contains("poll timeout"));
                assertThatThrownBy(slow::commitSync).as("the late commit of the removed member")
                        .isInstanceOf(CommitFailedException.class);

                Set<TopicPartition> all = IntStream.range(0, 6).mapToObj(p -> new TopicPartition(TOPIC, p)).collect(Collectors.toSet());
                assertThat(steady.assignment()).as("the steady member owns the slow one's partitions too").isEqualTo(all);
                ConsumerGroup after = cluster.group(GROUP);
                assertThat(after.members()).singleElement().satisfies(m -> assertThat(m.clientId()).isEqualTo("steady"));
                assertThat(after.generation()).as("one rebalance for the leave").isEqualTo(generation + 1);

                // Every record was delivered; exactly the slow member's uncommitted batch was delivered twice.
                List<String> delivered = new ArrayList<>(committedBySlow);
                delivered.addAll(uncommittedBySlow);
                delivered.addAll(readBySteady);
                Map<String, Long> counts = delivered.stream().collect(Collectors.groupingBy(Function.identity(), TreeMap::new,
                        Collectors.counting()));
                assertThat(counts.keySet()).as("every record delivered").containsExactlyInAnyOrderElementsOf(sent);
                Set<String> duplicates = counts.entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey)
                        .collect(Collectors.toCollection(TreeSet::new));
                assertThat(duplicates).as("delivered twice (counts %s)", counts).containsExactlyInAnyOrderElementsOf(uncommittedBySlow);
                assertThat(counts.values()).as("nothing delivered three times").allMatch(n -> n <= 2);
                assertThat(delivered).as("deliveries").hasSize(sent.size() + uncommittedBySlow.size());
                assertThat(uncommittedBySlow).as("the uncommitted batch").isNotEmpty();
                assertThat(cluster.group(GROUP).committed().values().stream().mapToLong(Long::longValue).sum())
                        .as("the group's committed offsets cover every record").isEqualTo(sent.size());
                // The history checker, which sees only fetches, agrees: each record of the batch went to both.
                dev.samsa.GroupHistory history = cluster.history().group(GROUP);
                for (String value : uncommittedBySlow) {
                    int partition = Integer.parseInt(value.substring(1, value.indexOf('-')));
                    long offset = Long.parseLong(value.substring(value.indexOf('-') + 1));
                    assertThat(history.deliveredTwice()).as("%s in %s", value, history).anySatisfy(d -> {
                        assertThat(d.partition()).isEqualTo(partition);
                        assertThat(offset).isBetween(d.firstOffset(), d.lastOffset());
                        assertThat(d.clients()).containsExactly("slow", "steady");
                    });
                }
            } finally {
                closeQuietly(slow);
                closeQuietly(steady);
            }
        }
    }

    /** Subscribes {@code consumer} again, pausing every partition it is assigned while {@code paused} holds. */
    private static void subscribePausedWhile(AtomicBoolean paused, KafkaConsumer<String, String> consumer) {
        consumer.subscribe(List.of(TOPIC), new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                if (paused.get()) {
                    consumer.pause(partitions);
                }
            }
        });
    }

    /** Polls until a non-empty batch arrives; its values. */
    private static List<String> pollBatch(KafkaConsumer<String, String> consumer) {
        List<String> batch = new ArrayList<>();
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(1)).until(() -> {
            batch.addAll(values(consumer.poll(Duration.ofMillis(50))));
            return !batch.isEmpty();
        });
        return batch;
    }

    private static String memberIdRemoved(KafkaCluster cluster) {
        return cluster.events().events(MemberJoined.class).stream().filter(j -> j.clientId().startsWith("slow"))
                .findFirst().orElseThrow().memberId();
    }
}
