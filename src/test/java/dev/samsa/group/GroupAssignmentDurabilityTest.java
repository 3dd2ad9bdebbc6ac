package dev.samsa.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.samsa.GroupState;
import dev.samsa.KafkaCluster;
import dev.samsa.PartitionView;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;

/** As Kafka: a group is Stable, and its members get their assignment, only once the group record is replicated. */
class GroupAssignmentDurabilityTest {

    @Test
    void membersGetTheirAssignmentOnlyOnceTheGroupRecordIsReplicated() throws Exception {
        String group = "durable-sync";
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(51).topic("work", 3, 3).start()) {
            try (Admin admin = Admin.create(cluster.adminConfig())) {
                // Finding the coordinator creates __consumer_offsets; the group itself does not exist yet.
                assertThat(admin.describeConsumerGroups(List.of(group)).all()).failsWithin(Duration.ofSeconds(30))
                        .withThrowableOfType(java.util.concurrent.ExecutionException.class)
                        .withCauseInstanceOf(org.apache.kafka.common.errors.GroupIdNotFoundException.class);
            }
            int p = Utils.abs(group.hashCode()) % 5;
            PartitionView offsets = cluster.partition("__consumer_offsets", p);
            List<Integer> followers = offsets.replicas().stream().filter(r -> r != offsets.leader()).toList();
            followers.forEach(f -> cluster.faults().pauseReplication("__consumer_offsets", p, f));

            Map<String, Object> config = cluster.consumerConfig(group);
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
                consumer.subscribe(List.of("work"));
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(1)).until(() -> {
                    consumer.poll(Duration.ofMillis(50));
                    return cluster.group(group).state() == GroupState.COMPLETING_REBALANCE;
                });
                // The leader's SyncGroup is in; the record carrying the assignment is not replicated yet.
                consumer.poll(Duration.ofMillis(500));
                assertThat(consumer.assignment()).as("no assignment before the group record is replicated").isEmpty();
                assertThat(cluster.group(group).state()).isEqualTo(GroupState.COMPLETING_REBALANCE);

                followers.forEach(f -> cluster.faults().resumeReplication("__consumer_offsets", p, f));
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(1)).until(() -> {
                    consumer.poll(Duration.ofMillis(50));
                    return consumer.assignment().size() == 3;
                });
                assertThat(cluster.group(group).state()).isEqualTo(GroupState.STABLE);
            }
        }
    }
}
