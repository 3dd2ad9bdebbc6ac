package dev.samsa.group;

import static org.awaitility.Awaitility.await;

import dev.samsa.ConsumerGroup;
import dev.samsa.GroupPartition;
import dev.samsa.GroupState;
import dev.samsa.KafkaCluster;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/** Waits the group tests share, over real consumers of the six partitions of "orders", the topic they all use. */
final class Groups {

    private static final String TOPIC = "orders";
    private static final int PARTITIONS = 6;

    private Groups() {
    }

    /**
     * Polls every consumer until the group is Stable with exactly these members and each consumer owns what the
     * coordinator says, every partition exactly once.
     */
    static void awaitStable(KafkaCluster cluster, String group, List<KafkaConsumer<String, String>> consumers) {
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(1))
                .alias("group " + group + " settles with " + consumers.size() + " members").until(() -> {
            consumers.forEach(c -> c.poll(Duration.ofMillis(20)));
            ConsumerGroup g = cluster.group(group);
            if (g.state() != GroupState.STABLE || g.members().size() != consumers.size()) {
                return false;
            }
            List<TopicPartition> owned = consumers.stream().flatMap(c -> c.assignment().stream()).toList();
            Set<TopicPartition> distinct = new HashSet<>(owned);
            Set<TopicPartition> all = IntStream.range(0, PARTITIONS).mapToObj(p -> new TopicPartition(TOPIC, p))
                    .collect(Collectors.toSet());
            return owned.size() == PARTITIONS && distinct.equals(all)
                    && g.assignedPartitions().equals(all.stream().map(tp -> new GroupPartition(tp.topic(), tp.partition()))
                    .collect(Collectors.toCollection(TreeSet::new)));
        });
    }
}
