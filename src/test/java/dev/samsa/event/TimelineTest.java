package dev.samsa.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The timeline on its own: which events it keeps once it is full, in which order, and what it says it dropped. */
class TimelineTest {

    private final AtomicLong clusterTime = new AtomicLong(1_000);
    private final AtomicLong wallTime = new AtomicLong(0);

    private Timeline timeline(int capacity) {
        return new Timeline(clusterTime::get, wallTime::get, capacity);
    }

    private static List<String> details(Timeline timeline) {
        return timeline.events().stream().map(ClusterEvent::details).toList();
    }

    @Test
    void keepsTheMostRecentEventsInOrderAndCountsTheRest() {
        Timeline timeline = timeline(3);
        for (int i = 0; i < 7; i++) {
            timeline.record("Step", "n=" + i);
        }

        assertThat(details(timeline)).containsExactly("n=4", "n=5", "n=6");
        assertThat(timeline.dropped()).isEqualTo(4);
        assertThat(timeline.snapshot()).isEqualTo(new Timeline.Snapshot(4, timeline.events()));
    }

    @Test
    void aTimelineThatGrewBeforeItFilledStillKeepsTheMostRecentInOrder() {
        // 40 is past the initial ring, so the ring grows (16, 32, 40) before it starts to wrap.
        Timeline timeline = timeline(40);
        for (int i = 0; i < 100; i++) {
            timeline.record("Step", "n=" + i);
        }

        assertThat(details(timeline)).containsExactlyElementsOf(IntStream.range(60, 100).mapToObj(i -> "n=" + i).toList());
        assertThat(timeline.dropped()).isEqualTo(60);
    }

    @Test
    void belowItsCapacityItDropsNothingAndPrintsNoDropLine() {
        Timeline timeline = timeline(5);
        timeline.record("Step", "n=0");
        timeline.record("Step", "n=1");

        assertThat(timeline.dropped()).isZero();
        assertThat(timeline.toString()).doesNotContain("dropped").startsWith("1970-01-01T00:00:01Z  Step  n=0");
    }

    @Test
    void coalescingReplacesTheNewestEventOfAFullTimeline() {
        Timeline timeline = timeline(3);
        for (int i = 0; i < 5; i++) {
            timeline.record("Step", "n=" + i);
        }
        timeline.recordCoalesced("HighWatermark", "t-0", "t-0 hw=1");
        timeline.recordCoalesced("HighWatermark", "t-0", "t-0 hw=2");

        assertThat(details(timeline)).containsExactly("n=3", "n=4", "t-0 hw=2");
        assertThat(timeline.dropped()).isEqualTo(3);
    }

    @Test
    void thePrintedTimelineSaysHowManyEarlierEventsWereDropped() {
        Timeline timeline = timeline(2);
        for (int i = 0; i < 5; i++) {
            timeline.record("Step", "n=" + i);
        }

        assertThat(timeline.toString()).isEqualTo("""
                ... 3 earlier events dropped (the timeline keeps the last 2)
                1970-01-01T00:00:01Z  Step  n=3
                1970-01-01T00:00:01Z  Step  n=4""");
    }

    @Test
    void awaitDoesNotFindADroppedEventAndSaysSoWhenItGivesUp() {
        Timeline timeline = timeline(2);
        for (int i = 0; i < 5; i++) {
            timeline.record("Step", "n=" + i);
        }

        assertThat(timeline.await(e -> e.details().equals("n=4"), Duration.ZERO).details()).isEqualTo("n=4");
        assertThatThrownBy(() -> timeline.await(e -> e.details().equals("n=0"), Duration.ZERO))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("... 3 earlier events dropped");
    }

    @Test
    void aCapacityBelowOneIsRefused() {
        assertThatThrownBy(() -> timeline(0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("capacity 0");
    }
}
