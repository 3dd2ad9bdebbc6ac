package dev.samsa.group;

import static dev.samsa.group.LivenessDriver.INTERVAL_MS;
import static dev.samsa.group.LivenessDriver.SESSION_TIMEOUT_MS;
import static dev.samsa.group.MemberLiveness.CONNECTION_CLOSE_GRACE_MS;
import static dev.samsa.group.MemberLiveness.SILENT_AFTER_INTERVALS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.samsa.event.ClusterEvent;
import dev.samsa.event.MemberDisconnected;
import dev.samsa.event.MemberRemoved;
import dev.samsa.event.SessionRearmed;
import dev.samsa.group.classic.ClassicLivenessDriver;
import dev.samsa.group.modern.consumer.ConsumerLivenessDriver;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * One table of boundaries of DESIGN.md's liveness rule, run against every member kind on a manual {@code MockScheduler}
 * (no cluster, no thread, no sleep): a jump of the cluster clock past a member's session removes it only if it has
 * also been silent in wall time for longer than {@link MemberLiveness#SILENT_AFTER_INTERVALS} heartbeat intervals,
 * or its connection closed.
 */
class LivenessBoundaryTest {

    private static final long SILENT_MS = SILENT_AFTER_INTERVALS * INTERVAL_MS;

    static Stream<Arguments> kinds() {
        return Stream.of(
                Arguments.of(Named.of("classic", ClassicLivenessDriver::new)),
                Arguments.of(Named.of("consumer protocol", ConsumerLivenessDriver::new)));
    }

    /** A JUnit display name for a supplier. */
    private record Named(String name, Supplier<LivenessDriver> driver) {
        static Named of(String name, Supplier<LivenessDriver> driver) {
            return new Named(name, driver);
        }

        @Override
        public String toString() {
            return name;
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void silentForExactlyTheAllowedIntervalsItIsJudgedAgainNotRemoved(Named kind) {
        LivenessDriver m = kind.driver().get();
        m.heartbeatingMember(null);
        // Silent for the allowed intervals less the grace an open connection gets; the grace makes it exactly that.
        m.scheduler().advanceWall(SILENT_MS - CONNECTION_CLOSE_GRACE_MS);

        assertThat(m.scheduler().advance(SESSION_TIMEOUT_MS - 1)).isEmpty();
        assertThat(m.scheduler().advance(1)).containsExactly(m.sessionKey());
        assertThat(m.scheduler().isScheduledInWallTime(m.sessionKey())).as("an open connection gets a grace").isTrue();
        assertThat(m.scheduler().advanceWall(CONNECTION_CLOSE_GRACE_MS)).containsExactly(m.sessionKey());

        assertThat(m.isMember()).isTrue();
        assertThat(events(m, SessionRearmed.class)).singleElement().satisfies(e -> {
            assertThat(e.heardMsAgo()).isEqualTo(SILENT_MS);
            assertThat(e.heartbeatIntervalMs()).isEqualTo(INTERVAL_MS);
        });
        // Judged again the moment it could be silent; its next heartbeat re-arms a whole session in cluster time first.
        assertThat(m.scheduler().isScheduledInWallTime(m.sessionKey())).isTrue();
        m.heartbeat();
        assertThat(m.scheduler().isScheduled(m.sessionKey()) && !m.scheduler().isScheduledInWallTime(m.sessionKey())).isTrue();
        assertThat(m.scheduler().advanceWall(SILENT_MS * 10)).isEmpty();
        assertThat(m.isMember()).isTrue();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void silentOneMillisecondLongerItIsRemoved(Named kind) {
        LivenessDriver m = kind.driver().get();
        m.heartbeatingMember(null);
        m.scheduler().advanceWall(SILENT_MS - CONNECTION_CLOSE_GRACE_MS + 1);

        assertThat(m.scheduler().advance(SESSION_TIMEOUT_MS)).containsExactly(m.sessionKey());
        assertThat(m.isMember()).as("judged after the grace").isTrue();
        assertThat(m.scheduler().advanceWall(CONNECTION_CLOSE_GRACE_MS)).containsExactly(m.sessionKey());

        assertThat(m.isMember()).isFalse();
        assertThat(events(m, MemberRemoved.class)).singleElement().extracting(MemberRemoved::reason)
                .isEqualTo("session timeout of " + SESSION_TIMEOUT_MS + " ms expired");
        assertThat(events(m, SessionRearmed.class)).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void stillTalkingItIsRemovedOnceItFallsSilentWithoutAnotherJump(Named kind) {
        LivenessDriver m = kind.driver().get();
        m.heartbeatingMember(null);

        m.scheduler().advance(SESSION_TIMEOUT_MS);
        m.scheduler().advanceWall(CONNECTION_CLOSE_GRACE_MS);
        assertThat(m.isMember()).isTrue();
        // Its process hangs with its sockets open: it is removed once silent for the allowed intervals.
        assertThat(m.scheduler().advanceWall(SILENT_MS - CONNECTION_CLOSE_GRACE_MS)).isEmpty();
        assertThat(m.scheduler().advanceWall(1)).containsExactly(m.sessionKey());
        assertThat(m.isMember()).isFalse();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void itsConnectionClosedItIsRemovedAtTheJumpWithoutWaitingInWallTime(Named kind) {
        LivenessDriver m = kind.driver().get();
        m.heartbeatingMember(null);
        m.connectionClosed();
        assertThat(events(m, MemberDisconnected.class)).hasSize(1);

        // Not a millisecond of wall time: it heartbeated just now, but a killed client closes its sockets.
        assertThat(m.scheduler().advance(SESSION_TIMEOUT_MS)).containsExactly(m.sessionKey());

        assertThat(m.isMember()).isFalse();
        assertThat(events(m, MemberRemoved.class)).singleElement().extracting(MemberRemoved::reason)
                .isEqualTo("session timeout of " + SESSION_TIMEOUT_MS + " ms expired; its connection to the coordinator closed");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void aStaticMemberThatWentAwayKeepsItsPlaceForItsSessionThenFreesItsInstanceId(Named kind) {
        LivenessDriver m = kind.driver().get();
        m.heartbeatingMember("instance-1");
        m.staticMemberGoesAway();

        assertThat(m.scheduler().advance(SESSION_TIMEOUT_MS - 1)).isEmpty();
        assertThat(m.instanceIdTaken("instance-1")).as("its place waits for it").isTrue();
        assertThat(m.scheduler().advance(1)).containsExactly(m.sessionKey());

        assertThat(m.isMember()).isFalse();
        assertThat(m.instanceIdTaken("instance-1")).isFalse();
    }

    private static <E extends ClusterEvent> List<E> events(LivenessDriver m, Class<E> kind) {
        return m.events().stream().filter(kind::isInstance).map(kind::cast).toList();
    }
}
