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
        return timeline.events().stream().map(TimedEvent::details).toList();
    }

    /** The i-th of a run of plain events, which details as "broker=i". */
    private static ClusterEvent step(int i) {
        return new BrokerStarted(i);
    }

    @Test
    void keepsTheMostRecentEventsInOrderAndCountsTheRest() {
        Timeline timeline = timeline(3);
        for (int i = 0; i < 7; i++) {
            timeline.record(step(i));
        }

        assertThat(details(timeline)).containsExactly("broker=4", "broker=5", "broker=6");
        assertThat(timeline.dropped()).isEqualTo(4);
        assertThat(timeline.snapshot()).isEqualTo(new Timeline.Snapshot(4, timeline.events()));
    }

    @Test
    void aTimelineThatGrewBeforeItFilledStillKeepsTheMostRecentInOrder() {
        // 40 is past the initial ring, so the ring grows (16, 32, 40) before it starts to wrap.
        Timeline timeline = timeline(40);
        for (int i = 0; i < 100; i++) {
            timeline.record(step(i));
        }

        assertThat(details(timeline)).containsExactlyElementsOf(IntStream.range(60, 100).mapToObj(i -> "broker=" + i).toList());
        assertThat(timeline.dropped()).isEqualTo(60);
    }

    @Test
    void belowItsCapacityItDropsNothingAndPrintsNoDropLine() {
        Timeline timeline = timeline(5);
        timeline.record(step(0));
        timeline.record(step(1));

        assertThat(timeline.dropped()).isZero();
        assertThat(timeline.toString()).doesNotContain("dropped").startsWith("1970-01-01T00:00:01Z  BrokerStarted  broker=0");
    }

    @Test
    void coalescingReplacesTheNewestEventOfAFullTimeline() {
        Timeline timeline = timeline(3);
        for (int i = 0; i < 5; i++) {
            timeline.record(step(i));
        }
        timeline.record(new HighWatermark("t", 0, 1));
        timeline.record(new HighWatermark("t", 0, 2));

        assertThat(details(timeline)).containsExactly("broker=3", "broker=4", "t-0 hw=2");
        assertThat(timeline.dropped()).isEqualTo(3);
    }

    @Test
    void thePrintedTimelineSaysHowManyEarlierEventsWereDropped() {
        Timeline timeline = timeline(2);
        for (int i = 0; i < 5; i++) {
            timeline.record(step(i));
        }

        assertThat(timeline.toString()).isEqualTo("""
                ... 3 earlier events dropped (the timeline keeps the last 2)
                1970-01-01T00:00:01Z  BrokerStarted  broker=3
                1970-01-01T00:00:01Z  BrokerStarted  broker=4""");
    }

    @Test
    void awaitDoesNotFindADroppedEventAndSaysSoWhenItGivesUp() {
        Timeline timeline = timeline(2);
        for (int i = 0; i < 5; i++) {
            timeline.record(step(i));
        }

        assertThat(timeline.await(BrokerStarted.class, e -> e.brokerId() == 4, Duration.ZERO).brokerId()).isEqualTo(4);
        assertThatThrownBy(() -> timeline.await(BrokerStarted.class, e -> e.brokerId() == 0, Duration.ZERO))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("... 3 earlier events dropped");
    }

    @Test
    void onlyAnUnbrokenRunOfOneStreamCoalesces() {
        Timeline timeline = timeline(10);
        timeline.record(new HighWatermark("t", 0, 1));
        timeline.record(new HighWatermark("t", 0, 2));
        timeline.record(new HighWatermark("t", 1, 1));
        timeline.record(new HighWatermark("t", 0, 3));
        timeline.record(step(1));
        timeline.record(new HighWatermark("t", 0, 4));
        timeline.record(new StaleLeaderAppend("t", 0, 1, 3, 10));
        timeline.record(new StaleLeaderAppend("t", 0, 1, 3, 11));
        timeline.record(new StaleLeaderAppend("t", 0, 2, 3, 11));

        assertThat(details(timeline)).containsExactly("t-0 hw=2", "t-1 hw=1", "t-0 hw=3", "broker=1", "t-0 hw=4",
                "t-0 broker=1 epoch=3 logEndOffset=11", "t-0 broker=2 epoch=3 logEndOffset=11");
    }

    @Test
    void aCoalescedEventCarriesTheTimeOfTheLatestMove() {
        Timeline timeline = timeline(10);
        timeline.record(new HighWatermark("t", 0, 1));
        clusterTime.set(2_000);
        timeline.record(new HighWatermark("t", 0, 2));

        assertThat(timeline.events()).containsExactly(new TimedEvent(2_000, new HighWatermark("t", 0, 2)));
    }

    @Test
    void readersPickEventsByKindAndReadTheirFields() {
        Timeline timeline = timeline(10);
        timeline.record(step(1));
        timeline.record(new BrokerStopped(2, "CRASH"));
        timeline.record(step(2));

        ClusterTimeline readOnly = timeline;
        assertThat(readOnly.events(BrokerStarted.class)).extracting(BrokerStarted::brokerId).containsExactly(1, 2);
        assertThat(readOnly.events(BrokerStopped.class)).singleElement().extracting(BrokerStopped::how).isEqualTo("CRASH");
        assertThat(readOnly.matching(e -> e.event() instanceof BrokerStopped)).extracting(TimedEvent::type)
                .containsExactly("BrokerStopped");
    }

    @Test
    void aCapacityBelowOneIsRefused() {
        assertThatThrownBy(() -> timeline(0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("capacity 0");
    }
}
