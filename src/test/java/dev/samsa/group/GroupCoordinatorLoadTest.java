package dev.samsa.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.samsa.coordinator.CoordinatorFixture;
import dev.samsa.event.CoordinatorLoaded;
import dev.samsa.event.TimedEvent;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.errors.CoordinatorLoadInProgressException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * When the group coordinator loads a {@code __consumer_offsets} partition: as soon as the partition has a leader, and
 * never because someone looked. Two brokers, two offsets partitions, replication factor 2, no sockets.
 */
class GroupCoordinatorLoadTest {

    @TempDir
    Path dir;
    private CoordinatorFixture cluster;

    @BeforeEach
    void start() {
        cluster = new CoordinatorFixture(dir, 2, Map.of("offsets.topic.num.partitions", "2",
                "offsets.topic.replication.factor", "2"));
    }

    @AfterEach
    void close() {
        cluster.close();
    }

    private List<String> loaded() {
        return cluster.call(() -> cluster.state.timeline().events().stream().map(TimedEvent::event)
                .filter(CoordinatorLoaded.class::isInstance).map(CoordinatorLoaded.class::cast)
                .map(e -> e.partition() + "@" + e.brokerId()).toList());
    }

    @Test
    void creatingTheOffsetsTopicLoadsEveryPartitionOnItsLeaderAndArmsItsExpiry() {
        GroupCoordinator coordinator = cluster.call(() -> new GroupCoordinator(cluster.state));

        int leader = cluster.call(() -> coordinator.findCoordinator(1, "billing"));

        List<Integer> leaders = cluster.call(() -> cluster.state.metadata().topic(GroupCoordinator.OFFSETS_TOPIC).partitions()
                .stream().map(p -> p.leader()).toList());
        assertThat(loaded()).containsExactly("0@" + leaders.get(0), "1@" + leaders.get(1));
        assertThat(cluster.call(() -> cluster.state.scheduler().isScheduled(OffsetStore.cleanupKey(0))
                && cluster.state.scheduler().isScheduled(OffsetStore.cleanupKey(1)))).isTrue();
        assertThat(cluster.call(() -> coordinator.describeGroup(leader, "billing"))).as("loaded, and no such group").isNull();
    }

    @Test
    void inspectingAGroupWhosePartitionIsNotLoadedLoadsNothingAndArmsNoTimer() {
        int leader = cluster.call(() -> new GroupCoordinator(cluster.state).findCoordinator(1, "billing"));
        // Built after the topic got its leaders: this coordinator has loaded nothing, as before a load. The timers the
        // first one armed go, so that any timer seen below is this one's.
        GroupCoordinator coordinator = cluster.call(() -> new GroupCoordinator(cluster.state));
        cluster.run(() -> {
            cluster.state.scheduler().cancel(OffsetStore.cleanupKey(0));
            cluster.state.scheduler().cancel(OffsetStore.cleanupKey(1));
        });
        int loadsBefore = loaded().size();

        assertThat(cluster.call(() -> coordinator.groupOrNull("billing"))).isNull();
        assertThat(cluster.call(() -> coordinator.committed("billing"))).isEmpty();
        assertThat(cluster.call(() -> coordinator.listGroups(leader))).isEmpty();

        assertThat(loaded()).hasSize(loadsBefore);
        assertThat(cluster.call(() -> cluster.state.scheduler().isScheduled(OffsetStore.cleanupKey(0))
                || cluster.state.scheduler().isScheduled(OffsetStore.cleanupKey(1)))).isFalse();
        assertThatThrownBy(() -> cluster.call(() -> coordinator.describeGroup(leader, "billing")))
                .as("a request waits for the load, as Kafka answers").isInstanceOf(CoordinatorLoadInProgressException.class);
    }
}
