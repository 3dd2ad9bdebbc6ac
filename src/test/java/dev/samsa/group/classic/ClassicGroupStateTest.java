package dev.samsa.group.classic;

import static dev.samsa.group.classic.ClassicGroupState.COMPLETING_REBALANCE;
import static dev.samsa.group.classic.ClassicGroupState.DEAD;
import static dev.samsa.group.classic.ClassicGroupState.EMPTY;
import static dev.samsa.group.classic.ClassicGroupState.PREPARING_REBALANCE;
import static dev.samsa.group.classic.ClassicGroupState.STABLE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.samsa.event.GroupStateChanged;
import dev.samsa.event.TimedEvent;
import dev.samsa.event.Timeline;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The classic group's state machine against Kafka's table ({@code ClassicGroupState}'s valid previous states), one
 * test per legal and per illegal transition, as Kafka's {@code ClassicGroupTest}. The table is written out here, not
 * read from the enum, so a change to either shows.
 */
class ClassicGroupStateTest {

    /** Kafka's legal moves: target state -> the states it may be entered from. */
    private static final Map<ClassicGroupState, Set<ClassicGroupState>> KAFKA_TABLE = Map.of(
            EMPTY, EnumSet.of(PREPARING_REBALANCE),
            PREPARING_REBALANCE, EnumSet.of(EMPTY, STABLE, COMPLETING_REBALANCE),
            COMPLETING_REBALANCE, EnumSet.of(PREPARING_REBALANCE),
            STABLE, EnumSet.of(COMPLETING_REBALANCE),
            DEAD, EnumSet.of(EMPTY, PREPARING_REBALANCE, COMPLETING_REBALANCE, STABLE, DEAD));

    private long nowMs = 1_000;
    private final Timeline timeline = new Timeline(() -> nowMs, () -> 0L);

    static Stream<Arguments> legalTransitions() {
        return transitions(true);
    }

    static Stream<Arguments> illegalTransitions() {
        return transitions(false);
    }

    private static Stream<Arguments> transitions(boolean legal) {
        List<Arguments> list = new ArrayList<>();
        for (ClassicGroupState from : ClassicGroupState.values()) {
            for (ClassicGroupState to : ClassicGroupState.values()) {
                if (KAFKA_TABLE.get(to).contains(from) == legal) {
                    list.add(Arguments.of(from, to));
                }
            }
        }
        return list.stream();
    }

    @Test
    void theTableHasElevenLegalMovesAndFourteenIllegalOnes() {
        assertThat(legalTransitions()).hasSize(11);
        assertThat(illegalTransitions()).hasSize(14);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource("legalTransitions")
    void aLegalTransitionMovesTheGroupRemembersWhereItCameFromAndStampsClusterTime(ClassicGroupState from,
                                                                                    ClassicGroupState to) {
        ClassicGroup group = groupIn(from);
        int eventsBefore = timeline.events().size();
        nowMs += 500;

        group.transitionTo(to, nowMs);

        assertThat(group.state()).as("%s", group).isEqualTo(to);
        assertThat(group.previousState()).isEqualTo(from);
        assertThat(group.stateTimestampMs()).isEqualTo(nowMs);
        List<TimedEvent> added = timeline.events().subList(eventsBefore, timeline.events().size());
        assertThat(added).singleElement().satisfies(e -> {
            assertThat(e.timeMs()).isEqualTo(nowMs);
            assertThat(e.event()).isInstanceOfSatisfying(GroupStateChanged.class, changed -> {
                assertThat(changed.groupId()).isEqualTo("g");
                assertThat(changed.previousState()).isEqualTo(from.toString());
                assertThat(changed.state()).isEqualTo(to.toString());
            });
        });
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @MethodSource("illegalTransitions")
    void anIllegalTransitionIsRefusedNamingTheGroupAndLeavesItAsItWas(ClassicGroupState from, ClassicGroupState to) {
        ClassicGroup group = groupIn(from);
        ClassicGroupState previous = group.previousState();
        long stamped = group.stateTimestampMs();
        int eventsBefore = timeline.events().size();
        nowMs += 500;

        assertThatThrownBy(() -> group.transitionTo(to, nowMs)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Group g ").hasMessageContaining("to move to " + to + ", but is in " + from);

        assertThat(group.state()).isEqualTo(from);
        assertThat(group.previousState()).isEqualTo(previous);
        assertThat(group.stateTimestampMs()).isEqualTo(stamped);
        assertThat(timeline.events()).hasSize(eventsBefore);
    }

    @ParameterizedTest
    @EnumSource(ClassicGroupState.class)
    void aGroupCanRebalanceExactlyWhenPreparingRebalanceMayFollow(ClassicGroupState state) {
        assertThat(groupIn(state).canRebalance()).isEqualTo(state == EMPTY || state == STABLE || state == COMPLETING_REBALANCE);
    }

    @Test
    void theNextGenerationOfAGroupWithoutMembersIsEmpty() {
        ClassicGroup group = groupIn(PREPARING_REBALANCE);

        group.initNextGeneration(nowMs);

        assertThat(group.state()).isEqualTo(EMPTY);
        assertThat(group.generationId()).isEqualTo(1);
        assertThat(group.protocolName()).isNull();
    }

    @Test
    void statesAreNamedAsKafkaNamesThem() {
        assertThat(Stream.of(ClassicGroupState.values()).map(ClassicGroupState::toString))
                .containsExactly("Empty", "PreparingRebalance", "CompletingRebalance", "Stable", "Dead");
    }

    /** A bare group walked to {@code state} along legal moves. */
    private ClassicGroup groupIn(ClassicGroupState state) {
        ClassicGroup group = new ClassicGroup("g", timeline, nowMs);
        List<ClassicGroupState> path = switch (state) {
            case EMPTY -> List.of();
            case PREPARING_REBALANCE -> List.of(PREPARING_REBALANCE);
            case COMPLETING_REBALANCE -> List.of(PREPARING_REBALANCE, COMPLETING_REBALANCE);
            case STABLE -> List.of(PREPARING_REBALANCE, COMPLETING_REBALANCE, STABLE);
            case DEAD -> List.of(DEAD);
        };
        path.forEach(s -> group.transitionTo(s, nowMs));
        assertThat(group.state()).isEqualTo(state);
        return group;
    }
}
