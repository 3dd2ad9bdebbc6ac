package dev.samsa.group.modern.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.samsa.event.GroupStateChanged;
import dev.samsa.event.Timeline;
import dev.samsa.group.modern.Assignment;
import dev.samsa.group.modern.MemberState;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

/** The consumer group's state table and how the state is read off the group, without a cluster. */
class ConsumerGroupStateTest {

    private static final Uuid TOPIC = new Uuid(1, 1);

    private final Timeline timeline = new Timeline(() -> 0L, () -> 0L);
    private final ConsumerGroup group = new ConsumerGroup("g", timeline);

    @Test
    void deadIsFinalAndEveryLiveStateMayFollowEveryOther() {
        for (ConsumerGroupState s : ConsumerGroupState.values()) {
            assertThat(ConsumerGroupState.DEAD.validPreviousStates().contains(s)).as("%s -> Dead", s).isEqualTo(s != ConsumerGroupState.DEAD);
            assertThat(s.validPreviousStates()).as("nothing follows Dead").doesNotContain(ConsumerGroupState.DEAD);
            assertThat(s.validPreviousStates()).as("no self-move for %s", s).doesNotContain(s);
        }
        assertThat(ConsumerGroupState.RECONCILING.toString()).isEqualTo("Reconciling");
    }

    @Test
    void aGroupLeavesDeadNeverAgain() {
        group.transitionTo(ConsumerGroupState.DEAD);
        assertThatThrownBy(() -> group.transitionTo(ConsumerGroupState.EMPTY))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("Dead to Empty");
    }

    @Test
    void stateIsReadOffEpochsAndMembersAndEachMoveIsOnTheTimeline() {
        group.setGroupEpoch(1);
        group.putMember(member("a", 0, MemberState.STABLE, Map.of()));
        group.updateState();
        assertThat(group.state()).as("group epoch ahead of the target").isEqualTo(ConsumerGroupState.ASSIGNING);

        group.setTargetAssignment(1, Map.of("a", Assignment.of(Map.of(TOPIC, Set.of(0, 1)))));
        group.updateState();
        assertThat(group.state()).as("member a still in epoch 0").isEqualTo(ConsumerGroupState.RECONCILING);

        group.putMember(member("a", 1, MemberState.STABLE, Map.of(TOPIC, Set.of(0, 1))));
        group.updateState();
        assertThat(group.state()).isEqualTo(ConsumerGroupState.STABLE);

        group.removeMember("a");
        group.updateState();
        assertThat(group.state()).isEqualTo(ConsumerGroupState.EMPTY);
        assertThat(timeline.events(GroupStateChanged.class)).extracting(GroupStateChanged::state)
                .containsExactly("Assigning", "Reconciling", "Stable", "Empty");
    }

    @Test
    void aPartitionCannotBeHeldByTwoMembers() {
        group.putMember(member("a", 1, MemberState.STABLE, Map.of(TOPIC, Set.of(0))));
        assertThat(group.currentPartitionEpoch(TOPIC, 0)).isEqualTo(1);
        assertThatThrownBy(() -> group.putMember(member("b", 1, MemberState.STABLE, Map.of(TOPIC, Set.of(0)))))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("already held");
        group.removeMember("a");
        assertThat(group.currentPartitionEpoch(TOPIC, 0)).as("free once its owner is gone").isEqualTo(-1);
    }

    static ConsumerGroupMember member(String id, int epoch, MemberState state, Map<Uuid, Set<Integer>> assigned) {
        return new ConsumerGroupMember(id, null, null, "client", "host", List.of("t"), null, null, 30000, epoch, epoch - 1,
                state, Assignment.of(assigned), Assignment.EMPTY);
    }
}
