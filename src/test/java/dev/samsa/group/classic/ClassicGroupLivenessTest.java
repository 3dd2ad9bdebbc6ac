package dev.samsa.group.classic;

import static dev.samsa.group.classic.ClassicGroupTestContext.REBALANCE_TIMEOUT_MS;
import static dev.samsa.group.classic.ClassicGroupTestContext.SESSION_TIMEOUT_MS;
import static dev.samsa.group.classic.ClassicGroupTestContext.connection;
import static dev.samsa.group.classic.ClassicGroupTestContext.heartbeatKey;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.samsa.event.MemberRemoved;
import dev.samsa.event.SessionRearmed;
import dev.samsa.group.MemberLiveness;
import dev.samsa.group.classic.ClassicGroupTestContext.PendingJoin;
import dev.samsa.time.MockScheduler;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * DESIGN.md's liveness rule on what only the classic group has (a rejoin within the rebalance timeout, static members
 * in a join phase, the system clock), with cluster time and wall time moved by hand; the boundaries every member kind
 * shares are {@code dev.samsa.group.LivenessBoundaryTest}'s. No cluster, no thread, no sleep.
 */
class ClassicGroupLivenessTest {

    /** The member heartbeats every 3 s in wall time; its session is 45 s. */
    private static final long INTERVAL_MS = 3_000;
    private static final long GRACE_MS = MemberLiveness.CONNECTION_CLOSE_GRACE_MS;

    private final ClassicGroupTestContext ctx = ClassicGroupTestContext.manualClock();

    /** A Stable member that has heartbeated twice, INTERVAL_MS apart in wall time, the last one just now. */
    private String heartbeatingMember() {
        String member = ctx.stableWithOneMember("c1", null);
        ctx.scheduler.advanceWall(1_000);
        ctx.heartbeat(member, "c1");
        ctx.scheduler.advanceWall(INTERVAL_MS);
        ctx.heartbeat(member, "c1");
        return member;
    }

    @Test
    void aMemberThatSpeaksAgainAfterItsConnectionClosedIsLiveAgain() {
        String member = heartbeatingMember();
        ctx.classic.liveness().connectionClosed(ctx.group(), connection("c1"));
        // The client reconnected (another address, as a new socket has) and heartbeats there, on its interval.
        ctx.scheduler.advanceWall(INTERVAL_MS);
        ctx.classic.liveness().heartbeat(ctx.group(), member, null, ctx.group().generationId(), connection("c1") + "1");

        assertThat(ctx.scheduler.advance(SESSION_TIMEOUT_MS)).containsExactly(heartbeatKey(member));
        assertThat(ctx.scheduler.advanceWall(GRACE_MS)).containsExactly(heartbeatKey(member));

        assertThat(ctx.group().hasMember(member)).as("%s", ctx.group()).isTrue();
    }

    @Test
    void aStaticMemberSilentPastItsSessionIsRemovedAndFreesItsInstanceId() {
        String member = ctx.stableWithOneMember("s1", "instance-1");
        // Before it has left a gap between heartbeats its interval is taken as session.timeout.ms / 3.
        ctx.scheduler.advanceWall(MemberLiveness.SILENT_AFTER_INTERVALS * SESSION_TIMEOUT_MS / 3 - GRACE_MS + 1);

        assertThat(ctx.scheduler.advance(SESSION_TIMEOUT_MS)).containsExactly(heartbeatKey(member));
        assertThat(ctx.scheduler.advanceWall(GRACE_MS)).containsExactly(heartbeatKey(member));

        assertThat(ctx.group().hasMember(member)).as("%s", ctx.group()).isFalse();
        assertThat(ctx.group().hasStaticMember("instance-1")).isFalse();
        assertThat(ctx.events(MemberRemoved.class)).singleElement().satisfies(e -> {
            assertThat(e.memberId()).isEqualTo(member);
            assertThat(e.groupInstanceId()).isEqualTo("instance-1");
        });
    }

    @Test
    void aStaticMemberThatHasNotRejoinedNeitherHoldsTheJoinPhaseOpenNorIsRemovedFromIt() {
        String staticMember = ctx.stableWithOneMember("s1", "instance-1");
        PendingJoin newcomer = ctx.join("", null, "c2");
        assertThat(ctx.group().state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);
        // The static member is alive in wall time (it heartbeats), but does not rejoin.
        assertThatThrownBy(() -> ctx.heartbeat(staticMember, "s1")).isInstanceOf(RebalanceInProgressException.class);

        // The rebalance timeout passes in cluster time: a static member's wall-time liveness does not extend it.
        assertThat(ctx.scheduler.advance(REBALANCE_TIMEOUT_MS)).containsExactly("join-" + ClassicGroupTestContext.GROUP);

        assertThat(ctx.group().state()).as("%s", ctx.group()).isEqualTo(ClassicGroupState.COMPLETING_REBALANCE);
        assertThat(ctx.group().generationId()).isEqualTo(2);
        assertThat(ctx.group().hasMember(staticMember)).as("static members are not removed for missing a rejoin").isTrue();
        assertThat(newcomer.get().error()).isEqualTo(Errors.NONE);
        assertThat(newcomer.get().generationId()).isEqualTo(2);
        assertThat(ctx.events(MemberRemoved.class)).isEmpty();
    }

    @Test
    void aDynamicMemberStillTalkingInWallTimeGetsTheRestOfItsRebalanceTimeoutToRejoin() {
        String talking = ctx.stableWithOneMember("c1", null);
        PendingJoin newcomer = ctx.join("", null, "c2");

        // The jump takes cluster time past the rebalance timeout; the member spoke just now in wall time.
        assertThat(ctx.scheduler.advance(REBALANCE_TIMEOUT_MS)).containsExactly("join-" + ClassicGroupTestContext.GROUP);
        assertThat(ctx.scheduler.isScheduledInWallTime("join-" + ClassicGroupTestContext.GROUP)).isTrue();
        assertThat(ctx.group().state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);

        // Its client polls and rejoins: the join phase completes with both members.
        PendingJoin rejoined = ctx.join(talking, null, "c1");

        assertThat(ctx.group().state()).as("%s", ctx.group()).isEqualTo(ClassicGroupState.COMPLETING_REBALANCE);
        assertThat(rejoined.get().generationId()).isEqualTo(2);
        assertThat(newcomer.get().generationId()).isEqualTo(2);
        assertThat(ctx.scheduler.isScheduled("join-" + ClassicGroupTestContext.GROUP)).isFalse();
    }

    @Test
    void aDynamicMemberThatNeverRejoinsIsRemovedOnceItsRebalanceTimeoutHasPassedInWallTimeToo() {
        String silent = ctx.stableWithOneMember("c1", null);
        ctx.join("", null, "c2");

        assertThat(ctx.scheduler.advance(REBALANCE_TIMEOUT_MS)).containsExactly("join-" + ClassicGroupTestContext.GROUP);
        assertThat(ctx.scheduler.advanceWall(REBALANCE_TIMEOUT_MS - 1)).isEmpty();
        assertThat(ctx.scheduler.advanceWall(1)).containsExactly("join-" + ClassicGroupTestContext.GROUP);

        assertThat(ctx.group().hasMember(silent)).as("%s", ctx.group()).isFalse();
        assertThat(ctx.events(MemberRemoved.class)).singleElement().extracting(MemberRemoved::reason)
                .isEqualTo("did not rejoin within the rebalance timeout");
        assertThat(ctx.group().state()).isEqualTo(ClassicGroupState.COMPLETING_REBALANCE);
    }

    @Test
    void underTheSystemClockASessionThatPassesRemovesTheMemberAsKafkaDoes() {
        ClassicGroupTestContext system = new ClassicGroupTestContext(new MockScheduler(false, 0, 0));
        String member = system.stableWithOneMember("c1", null);

        // Only a manual clock has jumps to forgive: the session is Kafka's deadline, with no grace.
        assertThat(system.scheduler.advance(SESSION_TIMEOUT_MS - 1)).isEmpty();
        assertThat(system.scheduler.advance(1)).containsExactly(heartbeatKey(member));

        assertThat(system.group().hasMember(member)).as("%s", system.group()).isFalse();
        assertThat(system.events(SessionRearmed.class)).isEmpty();
    }
}
