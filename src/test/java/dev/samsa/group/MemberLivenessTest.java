package dev.samsa.group;

import static dev.samsa.group.MemberLiveness.Verdict.EXPIRE;
import static dev.samsa.group.MemberLiveness.Verdict.GRACE;
import static dev.samsa.group.MemberLiveness.Verdict.REARM;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The liveness rule of DESIGN.md on its own, with the loop's wall time given by the test. */
class MemberLivenessTest {

    @Test
    void aClassicMemberIsMeasuredInAThirdOfItsSessionUntilItHasLeftAGapThenInItsLongestGap() {
        MemberLiveness m = MemberLiveness.ownInterval(45_000, 1_000);
        assertThat(m.heartbeatIntervalMs()).isEqualTo(15_000);
        assertThat(m.silentInWallTime(1_000 + 30_000)).isFalse();
        assertThat(m.silentInWallTime(1_000 + 30_001)).isTrue();

        m.heartbeat("c", 20_000);
        m.heartbeat("c", 23_000);
        m.heartbeat("c", 25_000);
        assertThat(m.heartbeatIntervalMs()).as("its longest gap").isEqualTo(3_000);
        assertThat(m.msSinceHeard(26_500)).isEqualTo(1_500);
        assertThat(m.silentInWallTime(31_000)).isFalse();
        assertThat(m.silentInWallTime(31_001)).isTrue();
    }

    @Test
    void aConsumerProtocolMemberIsMeasuredInItsToldIntervalOrItsLongestGapWhenLonger() {
        MemberLiveness m = MemberLiveness.toldInterval(5_000, 0);
        m.heartbeat("c", 0);
        m.answered(10);
        m.heartbeat("c", 5_010);
        m.answered(5_020);
        assertThat(m.heartbeatIntervalMs()).isEqualTo(5_000);

        // Its timer slipped by 2 s once, on a loaded machine: that gap is the measure now.
        m.heartbeat("c", 12_020);
        m.answered(12_030);
        assertThat(m.heartbeatIntervalMs()).isEqualTo(7_000);
        assertThat(m.msUntilSilent(12_030 + 14_000)).isZero();
        assertThat(m.silentInWallTime(12_030 + 14_001)).isTrue();
    }

    @Test
    void aMemberWaitingForItsAnswerIsNeverSilentInWallTime() {
        MemberLiveness m = MemberLiveness.toldInterval(1_000, 0);
        m.heartbeat("c", 0);
        m.awaitingAnswer();
        assertThat(m.silentInWallTime(1_000_000)).isFalse();
        m.answered(1_000_000);
        assertThat(m.heartbeatIntervalMs()).as("the wait was not a gap it left").isEqualTo(1_000);
    }

    @Test
    void aClosedConnectionOrAStaticLeaveMakesItSilentAtOnceUntilItSpeaksAgain() {
        MemberLiveness m = MemberLiveness.toldInterval(3_000, 0);
        m.heartbeat("c1", 0);
        assertThat(m.connectionClosed("c2")).as("not its connection").isFalse();
        assertThat(m.connectionClosed("c1")).isTrue();
        assertThat(m.connectionClosed("c1")).as("once").isFalse();
        assertThat(m.silentInWallTime(0)).isTrue();
        assertThat(m.isConnected()).isFalse();

        m.heard("c3", 10);
        assertThat(m.silentInWallTime(10)).isFalse();
        m.silence();
        assertThat(m.silentInWallTime(10)).isTrue();
    }

    @Test
    void aDeadlineExpiresOnTheSystemClockAndOnAManualClockGivesAGraceThenJudges() {
        MemberLiveness m = MemberLiveness.toldInterval(3_000, 0);
        m.heartbeat("c", 0);
        m.answered(0);
        assertThat(m.atDeadline(100, false, false)).as("system clock: Kafka's deadline").isEqualTo(EXPIRE);
        assertThat(m.atDeadline(100, true, false)).isEqualTo(GRACE);
        assertThat(m.atDeadline(300, true, true)).isEqualTo(REARM);
        assertThat(m.atDeadline(6_001, true, false)).as("silent").isEqualTo(EXPIRE);
        m.connectionClosed("c");
        assertThat(m.atDeadline(300, true, false)).as("closed").isEqualTo(EXPIRE);
    }
}
