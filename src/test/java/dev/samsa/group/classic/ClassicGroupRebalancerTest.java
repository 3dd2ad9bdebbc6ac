package dev.samsa.group.classic;

import static dev.samsa.group.classic.ClassicGroupTestContext.REBALANCE_TIMEOUT_MS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.samsa.event.MemberRemoved;
import dev.samsa.event.RebalanceStarted;
import dev.samsa.group.classic.ClassicGroupTestContext.PendingSync;
import java.util.List;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** The sync half of a rebalance: the group record, parked followers and the sync phase's timeout, without a cluster. */
class ClassicGroupRebalancerTest {

    private static final String SYNC_KEY = "sync-" + ClassicGroupTestContext.GROUP;

    private final ClassicGroupTestContext ctx = ClassicGroupTestContext.manualClock();

    @Test
    void theAssignmentIsHandedOutOnlyOnceTheGroupRecordIsReplicated() {
        JoinResult[] joined = ctx.completingWithTwoMembers();
        ctx.holdWrites = true;
        PendingSync follower = ctx.sync(joined[1], "c2");
        PendingSync leader = ctx.sync(joined[0], "c1");

        assertThat(ctx.writes).endsWith(ClassicGroupState.COMPLETING_REBALANCE);
        assertThat(ctx.group().state()).as("not Stable before the record is replicated")
                .isEqualTo(ClassicGroupState.COMPLETING_REBALANCE);
        assertThat(follower.result).isNull();
        assertThat(leader.result).isNull();

        ctx.heldWrites.get(0).accept(Errors.NONE);

        assertThat(ctx.group().state()).isEqualTo(ClassicGroupState.STABLE);
        assertThat(List.of(follower.result.error(), leader.result.error())).containsOnly(Errors.NONE);
        assertThat(follower.result.assignment()).containsExactly(1);
    }

    @Test
    void aFailedGroupRecordWriteAnswersTheParkedMembersWithItsErrorAndRebalances() {
        JoinResult[] joined = ctx.completingWithTwoMembers();
        ctx.holdWrites = true;
        PendingSync follower = ctx.sync(joined[1], "c2");
        PendingSync leader = ctx.sync(joined[0], "c1");

        ctx.heldWrites.get(0).accept(Errors.NOT_COORDINATOR);

        assertThat(List.of(follower.result.error(), leader.result.error())).containsOnly(Errors.NOT_COORDINATOR);
        assertThat(ctx.group().state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);
        assertThat(ctx.group().allMembers()).allSatisfy(m -> assertThat(m.assignment()).isEmpty());
        assertThat(ctx.events(RebalanceStarted.class)).last().extracting(RebalanceStarted::reason)
                .isEqualTo("the group's assignment could not be written: NOT_COORDINATOR");
    }

    @Test
    void aMemberSilentThroughTheSyncPhaseIsRemovedAndTheGroupRebalances() {
        JoinResult[] joined = ctx.completingWithTwoMembers();
        ctx.sync(joined[0], "c1");
        // The follower never sends its SyncGroup and, silent in wall time too, is not talking either.
        ctx.scheduler.advanceWall(ClassicGroupTestContext.SESSION_TIMEOUT_MS);

        assertThat(ctx.scheduler.advance(REBALANCE_TIMEOUT_MS)).containsExactly(SYNC_KEY);

        assertThat(ctx.group().hasMember(joined[1].memberId())).as("%s", ctx.group()).isFalse();
        assertThat(ctx.events(MemberRemoved.class)).singleElement().satisfies(e -> {
            assertThat(e.memberId()).isEqualTo(joined[1].memberId());
            assertThat(e.reason()).isEqualTo("no SyncGroup within the rebalance timeout");
        });
        assertThat(ctx.group().state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);
    }

    @Test
    void theSyncPhaseTimerStopsOnceEveryMemberHasSynced() {
        JoinResult[] joined = ctx.completingWithTwoMembers();
        assertThat(ctx.scheduler.isScheduled(SYNC_KEY)).isTrue();

        ctx.sync(joined[1], "c2");
        assertThat(ctx.scheduler.isScheduled(SYNC_KEY)).as("one member has not synced yet").isTrue();
        ctx.sync(joined[0], "c1");

        assertThat(ctx.scheduler.isScheduled(SYNC_KEY)).isFalse();
        assertThat(ctx.group().state()).isEqualTo(ClassicGroupState.STABLE);
    }

    @Test
    void aLeaveDuringCompletingRebalanceTellsTheParkedFollowerToRejoin() {
        JoinResult[] joined = ctx.completingWithTwoMembers();
        PendingSync follower = ctx.sync(joined[1], "c2");

        ctx.classic.liveness().leave(ctx.group(), List.of(new ClassicGroupLiveness.Leaving(joined[0].memberId(), null, "closing")));

        assertThat(follower.result.error()).isEqualTo(Errors.REBALANCE_IN_PROGRESS);
        assertThat(ctx.events(MemberRemoved.class)).singleElement().extracting(MemberRemoved::reason).isEqualTo("left: closing");
        // The join phase now waits for the follower to rejoin.
        assertThat(ctx.group().state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);
        assertThat(ctx.group().numMembers()).isEqualTo(1);
    }

    @Test
    void aFollowerStillTalkingInWallTimeGetsTheRestOfTheSyncPhaseInWallTime() {
        JoinResult[] joined = ctx.completingWithTwoMembers();
        ctx.sync(joined[0], "c1");

        // The jump passes the rebalance timeout; the follower got its JoinGroup answer just now in wall time.
        assertThat(ctx.scheduler.advance(REBALANCE_TIMEOUT_MS)).containsExactly(SYNC_KEY);
        assertThat(ctx.scheduler.isScheduledInWallTime(SYNC_KEY)).isTrue();
        assertThat(ctx.group().hasMember(joined[1].memberId())).isTrue();

        PendingSync follower = ctx.sync(joined[1], "c2");

        assertThat(follower.result.error()).isEqualTo(Errors.NONE);
        assertThat(ctx.scheduler.isScheduled(SYNC_KEY)).isFalse();
        assertThat(ctx.group().state()).isEqualTo(ClassicGroupState.STABLE);
    }

    @Test
    void aFollowerThatNeverSyncsIsRemovedOnceTheRestOfTheSyncPhaseHasPassedInWallTime() {
        JoinResult[] joined = ctx.completingWithTwoMembers();
        ctx.sync(joined[0], "c1");
        assertThat(ctx.scheduler.advance(REBALANCE_TIMEOUT_MS)).containsExactly(SYNC_KEY);

        assertThat(ctx.scheduler.advanceWall(REBALANCE_TIMEOUT_MS - 1)).isEmpty();
        assertThat(ctx.scheduler.advanceWall(1)).containsExactly(SYNC_KEY);

        assertThat(ctx.group().hasMember(joined[1].memberId())).as("%s", ctx.group()).isFalse();
        assertThat(ctx.group().state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);
    }
}
