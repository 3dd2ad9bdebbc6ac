package dev.samsa.time;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ManualClockTest {

    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

    @Test
    void advanceRunsEveryDueTimerInDeadlineOrderAtItsOwnTime() {
        ClusterClock clock = ClusterClock.manual(START);
        try (ClusterLoop loop = new ClusterLoop("test-loop", clock)) {
            List<String> fired = new ArrayList<>();
            long t0 = clock.milliseconds();
            loop.call(() -> {
                Scheduler s = loop.scheduler();
                s.schedule("late", t0 + 3000, () -> fired.add("late@" + (clock.milliseconds() - t0)));
                s.schedule("early", t0 + 1000, () -> fired.add("early@" + (clock.milliseconds() - t0)));
                s.schedule("never", t0 + 10_000, () -> fired.add("never"));
                return null;
            });

            clock.advance(Duration.ofMillis(999));
            assertThat(fired).as("nothing is due 1 ms before the first deadline").isEmpty();

            clock.advance(Duration.ofMillis(2001));
            assertThat(fired).containsExactly("early@1000", "late@3000");
            assertThat(clock.milliseconds() - t0).isEqualTo(3000);
        }
    }

    @Test
    void schedulingAnExistingKeyReplacesItsTimer() {
        ClusterClock clock = ClusterClock.manual(START);
        try (ClusterLoop loop = new ClusterLoop("test-loop", clock)) {
            List<String> fired = new ArrayList<>();
            long t0 = clock.milliseconds();
            loop.call(() -> {
                loop.scheduler().schedule("session", t0 + 1000, () -> fired.add("first"));
                loop.scheduler().schedule("session", t0 + 5000, () -> fired.add("second"));
                return null;
            });
            clock.advance(Duration.ofSeconds(2));
            assertThat(fired).isEmpty();
            clock.advance(Duration.ofSeconds(3));
            assertThat(fired).containsExactly("second");
        }
    }

    @Test
    void aTimerScheduledByATimerWithinTheJumpAlsoRuns() {
        ClusterClock clock = ClusterClock.manual(START);
        try (ClusterLoop loop = new ClusterLoop("test-loop", clock)) {
            List<Long> fired = new ArrayList<>();
            long t0 = clock.milliseconds();
            loop.call(() -> {
                loop.scheduler().scheduleAfter("tick", 1000, new Runnable() {
                    @Override
                    public void run() {
                        fired.add(clock.milliseconds() - t0);
                        loop.scheduler().scheduleAfter("tick", 1000, this);
                    }
                });
                return null;
            });
            clock.advance(Duration.ofMillis(3500));
            assertThat(fired).containsExactly(1000L, 2000L, 3000L);
        }
    }

    @Test
    void theClockNeverGoesBackwardsAndTheSystemClockCannotBeAdvanced() {
        assertThatThrownBy(() -> ClusterClock.manual(START).advance(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ClusterClock.system().advance(Duration.ofSeconds(1)))
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("ClusterClock.manual");
    }

    @Test
    void aManualClockDrivesOnlyOneCluster() {
        ClusterClock clock = ClusterClock.manual(START);
        try (ClusterLoop loop = new ClusterLoop("first", clock)) {
            assertThatThrownBy(() -> new ClusterLoop("second", clock)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("own clock");
        }
    }
}
