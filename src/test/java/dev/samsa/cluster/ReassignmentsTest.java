package dev.samsa.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.samsa.event.ReassignmentCancelled;
import dev.samsa.event.ReassignmentCompleted;
import dev.samsa.event.ReassignmentStarted;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidReplicaAssignmentException;
import org.apache.kafka.common.errors.InvalidReplicationFactorException;
import org.apache.kafka.common.errors.NoReassignmentInProgressException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reassignments on the domain alone, through the instance the cluster state built. Partition "p" lives on brokers 1
 * (leader) and 2 of three, and holds two records. The replication a reassignment schedules runs on the loop before the
 * next task, so each assertion sees it done.
 */
class ReassignmentsTest {

    private static final TopicPartition TP = new TopicPartition("p", 0);

    @TempDir
    Path dir;
    private ClusterFixture cluster;
    private Partition partition;
    private Reassignments reassignments;

    @BeforeEach
    void twoRecordsOnBrokersOneAndTwo() {
        cluster = new ClusterFixture(dir, 3, Map.of());
        partition = cluster.createTopic("p", List.of(1, 2));
        reassignments = cluster.state.reassignments();
        cluster.append(TP, "a", "b");
    }

    @AfterEach
    void close() {
        cluster.close();
    }

    @Test
    void reorderingTheReplicasCompletesAtOnceAndMovesNoLeader() {
        cluster.run(() -> reassignments.reassign(partition, List.of(2, 1), false));

        assertThat(cluster.call(partition::replicas)).containsExactly(2, 1);
        assertThat(cluster.call(partition::leader)).isEqualTo(1);
        assertThat(cluster.call(partition::isReassigning)).isFalse();
        assertThat(cluster.events(ReassignmentStarted.class)).isEmpty();
        assertThat(cluster.events(ReassignmentCompleted.class)).singleElement()
                .satisfies(e -> assertThat(e.replicas()).containsExactly(2, 1));
    }

    @Test
    void aMovedReplicaLeavesOnceItsReplacementIsInSync() {
        cluster.run(() -> reassignments.reassign(partition, List.of(1, 3), false));

        assertThat(cluster.events(ReassignmentStarted.class)).singleElement().satisfies(e -> {
            assertThat(e.replicas()).containsExactly(1, 3, 2);
            assertThat(e.adding()).containsExactly(3);
            assertThat(e.removing()).containsExactly(2);
        });
        assertThat(cluster.call(partition::isReassigning)).isFalse();
        assertThat(cluster.call(partition::replicas)).containsExactly(1, 3);
        assertThat(cluster.isr(TP)).containsExactlyInAnyOrder(1, 3);
        assertThat(cluster.call(() -> partition.log(2))).as("the removed replica's log is gone").isNull();
        assertThat(cluster.call(() -> partition.log(3).logEndOffset())).isEqualTo(2);
        assertThat(cluster.call(reassignments::inProgress)).isEmpty();
        assertThat(cluster.events(ReassignmentCompleted.class)).singleElement()
                .satisfies(e -> assertThat(e.replicas()).containsExactly(1, 3));
    }

    @Test
    void cancellingKeepsTheOriginalReplicasAndDropsTheAddingOne() {
        cluster.run(() -> {
            reassignments.reassign(partition, List.of(1, 3), false);
            cluster.state.fetcher().pause(partition, 3);
        });
        assertThat(cluster.call(reassignments::inProgress)).as("a paused follower never catches up").containsExactly(partition);

        cluster.run(() -> reassignments.cancel(partition));

        assertThat(cluster.call(partition::isReassigning)).isFalse();
        assertThat(cluster.call(partition::replicas)).containsExactly(1, 2);
        assertThat(cluster.call(() -> partition.log(3))).isNull();
        assertThat(cluster.events(ReassignmentCancelled.class)).singleElement().satisfies(e -> {
            assertThat(e.replicas()).containsExactly(1, 2);
            assertThat(e.removed()).containsExactly(3);
        });
        assertThat(cluster.events(ReassignmentCompleted.class)).isEmpty();
    }

    @Test
    void refusesInvalidTargetsAndACancelWithNothingInProgress() {
        assertThatThrownBy(() -> cluster.run(() -> reassignments.reassign(partition, List.of(), true)))
                .isInstanceOf(InvalidReplicaAssignmentException.class).hasMessageContaining("empty replica list");
        assertThatThrownBy(() -> cluster.run(() -> reassignments.reassign(partition, List.of(1, 9), true)))
                .isInstanceOf(InvalidReplicaAssignmentException.class).hasMessageContaining("broker 9");
        assertThatThrownBy(() -> cluster.run(() -> reassignments.reassign(partition, List.of(1, 1), true)))
                .isInstanceOf(InvalidReplicaAssignmentException.class).hasMessageContaining("more than once");
        assertThatThrownBy(() -> cluster.run(() -> reassignments.reassign(partition, List.of(1, 2, 3), false)))
                .isInstanceOf(InvalidReplicationFactorException.class).hasMessageContaining("from 2 to 3");
        assertThatThrownBy(() -> cluster.run(() -> reassignments.cancel(partition)))
                .isInstanceOf(NoReassignmentInProgressException.class);

        assertThat(cluster.call(partition::replicas)).containsExactly(1, 2);
        assertThat(cluster.events(ReassignmentStarted.class)).isEmpty();
    }
}
