package dev.samsa.replication;

import static dev.samsa.replication.ScenarioSupport.producer;
import static dev.samsa.replication.ScenarioSupport.readAll;
import static dev.samsa.replication.ScenarioSupport.sendAcknowledged;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.samsa.KafkaCluster;
import dev.samsa.time.ClusterClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.PartitionReassignment;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidReplicaAssignmentException;
import org.apache.kafka.common.errors.NoReassignmentInProgressException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReassignmentTest {

    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");
    private static final TopicPartition TP = new TopicPartition("moving", 0);

    private static void createOn12(Admin admin) throws Exception {
        admin.createTopics(List.of(new NewTopic("moving", Map.of(0, List.of(1, 2))))).all().get();
    }

    /** Takes broker 2 out of the ISR, so that a reassignment to a target holding 2 waits for it. */
    private static void holdBroker2OutOfSync(KafkaCluster cluster, ClusterClock clock) {
        cluster.faults().pauseReplication("moving", 0, 2);
        // Past replica.lag.time.max.ms (30 s): the paused follower leaves the ISR.
        clock.advance(Duration.ofMillis(30_001));
        assertThat(cluster.partition("moving", 0).isr()).containsExactly(1);
    }

    private static void reassign(Admin admin, TopicPartition tp, Optional<NewPartitionReassignment> target) throws Exception {
        admin.alterPartitionReassignments(Map.of(tp, target)).all().get();
    }

    @Test
    void aReassignmentCopiesTheRecordsToTheNewReplicasDropsTheOldOneAndSurvivesARestart(@TempDir Path dir) throws Exception {
        List<String> sent;
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(21).clock(ClusterClock.manual(START))
                .dataDirectory(dir).start();
             Admin admin = Admin.create(cluster.adminConfig())) {
            ClusterClock clock = cluster.clock();
            createOn12(admin);
            try (KafkaProducer<String, String> producer = producer(cluster, "all", Map.of())) {
                sent = sendAcknowledged(producer, "moving", "r", 0, 30);
            }
            assertThat(sent).hasSize(30);
            holdBroker2OutOfSync(cluster, clock);

            reassign(admin, TP, Optional.of(new NewPartitionReassignment(List.of(2, 3))));
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                    assertThat(cluster.partition("moving", 0).isr()).as("the adding replica catches up").contains(3));
            Map<TopicPartition, PartitionReassignment> ongoing = admin.listPartitionReassignments().reassignments().get();
            assertThat(ongoing).containsOnlyKeys(TP);
            assertThat(ongoing.get(TP).replicas()).containsExactly(2, 3, 1);
            assertThat(ongoing.get(TP).addingReplicas()).containsExactly(3);
            assertThat(ongoing.get(TP).removingReplicas()).containsExactly(1);
            assertThat(cluster.partition("moving", 0).leader()).as("the leader leaves only at the end").isEqualTo(1);

            cluster.faults().resumeReplication("moving", 0, 2);
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                    assertThat(cluster.partition("moving", 0).replicas()).containsExactly(2, 3));
            assertThat(admin.listPartitionReassignments().reassignments().get()).isEmpty();
            assertThat(cluster.partition("moving", 0).leader()).isEqualTo(2);
            assertThat(cluster.partition("moving", 0).isr()).containsExactlyInAnyOrder(2, 3);
            assertThat(cluster.partition("moving", 0).logEndOffset(3)).isEqualTo(30);
            assertThatThrownBy(() -> cluster.partition("moving", 0).logEndOffset(1)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("not a replica");
            assertThat(dir.resolve("broker-1").resolve("moving-0")).as("the removed replica's log is deleted").doesNotExist();
            assertThat(readAll(cluster, "moving")).containsExactlyElementsOf(sent);
            assertThat(cluster.events().events()).anyMatch(e -> e.type().equals("ReassignmentCompleted"));
        }

        try (KafkaCluster reopened = KafkaCluster.builder().brokers(3).seed(21).clock(ClusterClock.manual(START))
                .dataDirectory(dir).start()) {
            assertThat(reopened.partition("moving", 0).replicas()).containsExactly(2, 3);
            assertThat(Files.exists(dir.resolve("broker-1").resolve("moving-0"))).isFalse();
            assertThat(readAll(reopened, "moving")).containsExactlyElementsOf(sent);
        }
    }

    @Test
    void cancellingAReassignmentKeepsTheOriginalReplicasAndDropsTheAddingOnes() throws Exception {
        ClusterClock clock = ClusterClock.manual(START);
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(22).clock(clock).start();
             Admin admin = Admin.create(cluster.adminConfig())) {
            createOn12(admin);
            holdBroker2OutOfSync(cluster, clock);
            reassign(admin, TP, Optional.of(new NewPartitionReassignment(List.of(2, 3))));
            assertThat(admin.listPartitionReassignments().reassignments().get()).containsOnlyKeys(TP);

            reassign(admin, TP, Optional.empty());
            // As Kafka reverts (PartitionReassignmentRevert): the replicas during the move, [2, 3, 1], less the adding 3;
            // the original order is not restored, so 2 becomes the preferred replica.
            assertThat(cluster.partition("moving", 0).replicas()).containsExactly(2, 1);
            assertThat(cluster.partition("moving", 0).leader()).isEqualTo(1);
            assertThat(admin.listPartitionReassignments().reassignments().get()).isEmpty();

            assertThatThrownBy(() -> reassign(admin, TP, Optional.empty())).isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(NoReassignmentInProgressException.class);
        }
    }

    @Test
    void badTargetsAreRefusedAsKafkaRefusesThem() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(23).start();
             Admin admin = Admin.create(cluster.adminConfig())) {
            createOn12(admin);
            assertThatThrownBy(() -> reassign(admin, TP, Optional.of(new NewPartitionReassignment(List.of(2, 9)))))
                    .hasCauseInstanceOf(InvalidReplicaAssignmentException.class).hasMessageContaining("broker 9");
            assertThatThrownBy(() -> reassign(admin, TP, Optional.of(new NewPartitionReassignment(List.of(3, 3)))))
                    .hasCauseInstanceOf(InvalidReplicaAssignmentException.class).hasMessageContaining("more than once");
            assertThatThrownBy(() -> reassign(admin, new TopicPartition("nowhere", 0), Optional.of(new NewPartitionReassignment(List.of(1)))))
                    .hasCauseInstanceOf(UnknownTopicOrPartitionException.class);
            assertThat(cluster.partition("moving", 0).replicas()).containsExactly(1, 2);
        }
    }
}
