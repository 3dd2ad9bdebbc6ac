package dev.samsa.event;

import static org.assertj.core.api.Assertions.assertThat;

import dev.samsa.time.ClusterClock;
import dev.samsa.time.ClusterLoop;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** Triggers on the timeline: when they fire, how often, and that nothing the loop had queued runs before them. */
class TriggerTest {

    @Test
    void aTriggerRunsRightAfterTheStepThatRecordedItsEventBeforeAnyQueuedTask() {
        ClusterClock clock = ClusterClock.manual(Instant.EPOCH);
        try (ClusterLoop loop = new ClusterLoop("trigger-test", clock)) {
            Timeline timeline = new Timeline(clock::milliseconds, loop::wallMillis);
            timeline.runTriggersWith(loop::runNext);
            List<String> order = new CopyOnWriteArrayList<>();
            timeline.on(e -> e instanceof BrokerStopped, () -> order.add("trigger"));

            loop.call(() -> {
                loop.execute(() -> order.add("queued task"));
                timeline.record(new BrokerStopped(1, "CRASH"));
                order.add("rest of the step");
                return null;
            });
            loop.call(() -> null);

            assertThat(order).containsExactly("rest of the step", "trigger", "queued task");
        }
    }

    @Test
    void oneShotByDefaultRepeatableOnRequestAndCancellable() {
        Timeline timeline = new Timeline(() -> 0L, () -> 0L);
        Trigger once = timeline.on(e -> e instanceof BrokerStarted, () -> { });
        Trigger every = timeline.onEvery(e -> e instanceof BrokerStarted, () -> { });
        timeline.record(new BrokerStarted(1));
        timeline.record(new BrokerStopped(1, "CRASH"));
        timeline.record(new BrokerStarted(1));
        every.cancel();
        timeline.record(new BrokerStarted(1));

        assertThat(once.fired()).isEqualTo(1);
        assertThat(every.fired()).isEqualTo(2);
    }

    @Test
    void anActionsOwnEventsFireTheNextTrigger() {
        Timeline timeline = new Timeline(() -> 0L, () -> 0L);
        timeline.on(e -> e instanceof BrokerStopped, () -> timeline.record(new BrokerStarted(1)));
        Trigger restarted = timeline.on(e -> e instanceof BrokerStarted, () -> { });
        timeline.record(new BrokerStopped(1, "CRASH"));

        assertThat(restarted.fired()).isEqualTo(1);
        assertThat(timeline.events()).extracting(TimedEvent::type).containsExactly("BrokerStopped", "BrokerStarted");
    }
}
