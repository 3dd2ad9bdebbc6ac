package dev.samsa.time;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The test twin keeps the loop scheduler's contract (ManualClockTest), without a thread. */
class MockSchedulerTest {

    @Test
    void advanceFiresDueTimersInDeadlineOrderAtTheirOwnTimeAndReportsThem() {
        MockScheduler s = MockScheduler.manual();
        List<String> seen = new ArrayList<>();
        s.schedule("late", 3_000, () -> seen.add("late@" + s.nowMs()));
        s.schedule("early", 1_000, () -> seen.add("early@" + s.nowMs()));
        s.schedule("never", 10_000, () -> seen.add("never"));

        assertThat(s.advance(999)).as("nothing is due 1 ms before the first deadline").isEmpty();
        assertThat(s.advance(2_001)).containsExactly("early", "late");

        assertThat(seen).containsExactly("early@1000", "late@3000");
        assertThat(s.nowMs()).isEqualTo(3_000);
        assertThat(s.isScheduled("never")).isTrue();
    }

    @Test
    void schedulingAnExistingKeyReplacesItsTimerAndCancelStopsIt() {
        MockScheduler s = MockScheduler.manual();
        s.schedule("session", 1_000, () -> { });
        s.scheduleAfter("session", 5_000, () -> { });
        s.schedule("other", 2_000, () -> { });
        assertThat(s.cancel("other")).isTrue();

        assertThat(s.advance(4_999)).isEmpty();
        assertThat(s.advance(1)).containsExactly("session");
        assertThat(s.cancel("session")).as("a fired timer is no longer scheduled").isFalse();
    }

    @Test
    void aTimerScheduledByATimerWithinTheJumpAlsoFires() {
        MockScheduler s = MockScheduler.manual();
        s.schedule("first", 1_000, () -> s.scheduleAfter("second", 1_000, () -> { }));

        assertThat(s.advance(5_000)).containsExactly("first", "second");
    }

    @Test
    void underAManualClockAJumpLeavesWallTimeAndWallTimersAlone() {
        MockScheduler s = MockScheduler.manual();
        s.scheduleWall("cap", 500, () -> { });
        s.schedule("session", 45_000, () -> { });

        assertThat(s.advance(45_000)).containsExactly("session");
        assertThat(s.wallMs()).isZero();
        assertThat(s.isScheduledInWallTime("cap")).isTrue();

        assertThat(s.advanceWall(499)).isEmpty();
        assertThat(s.advanceWall(1)).containsExactly("cap");
        assertThat(s.nowMs()).as("wall time passing leaves the cluster clock alone").isEqualTo(45_000);
    }

    @Test
    void underTheSystemClockWallTimeMovesWithClusterTime() {
        MockScheduler s = new MockScheduler(false, 0, 0);
        s.scheduleWall("cap", 500, () -> { });
        s.schedule("session", 300, () -> { });

        assertThat(s.advance(1_000)).containsExactly("session", "cap");
        assertThat(s.wallMs()).isEqualTo(1_000);
        assertThatThrownBy(() -> s.advanceWall(1)).isInstanceOf(IllegalStateException.class);
    }
}
