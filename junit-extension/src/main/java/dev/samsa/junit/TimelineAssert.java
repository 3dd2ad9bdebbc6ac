package dev.samsa.junit;

import dev.samsa.event.ClusterEvent;
import dev.samsa.event.TimedEvent;
import java.util.Arrays;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.assertj.core.api.AbstractAssert;
import org.assertj.core.api.Assertions;
import org.assertj.core.api.ListAssert;

/**
 * Assertions on a cluster's event timeline, as it was when {@link KafkaClusterAssert#timeline()} (or
 * {@link SamsaAssertions#assertThat(dev.samsa.event.ClusterTimeline)}) was called. Every failure message shows the whole
 * timeline, one event per line.
 */
public final class TimelineAssert extends AbstractAssert<TimelineAssert, List<TimedEvent>> {

    TimelineAssert(List<TimedEvent> events) {
        super(List.copyOf(events), TimelineAssert.class);
    }

    /**
     * Some event is of this kind and matches {@code condition}, read from its typed fields:
     * {@code hasEvent(LeaderChanged.class, e -> e.topic().equals("orders") && e.newLeader() == 2)}.
     */
    public <E extends ClusterEvent> TimelineAssert hasEvent(Class<E> kind, Predicate<? super E> condition) {
        if (actual.stream().map(TimedEvent::event).filter(kind::isInstance).map(kind::cast).noneMatch(condition)) {
            fail("to have an event " + kind.getSimpleName() + " matching the condition");
        }
        return this;
    }

    /** Some event is of this kind. */
    public TimelineAssert hasEvent(Class<? extends ClusterEvent> kind) {
        return hasEvent(kind, e -> true);
    }

    /** No event of this kind matches {@code condition}. */
    public <E extends ClusterEvent> TimelineAssert doesNotHaveEvent(Class<E> kind, Predicate<? super E> condition) {
        List<TimedEvent> found = actual.stream().filter(e -> kind.isInstance(e.event()) && condition.test(kind.cast(e.event())))
                .toList();
        if (!found.isEmpty()) {
            fail("to have no event " + kind.getSimpleName() + " matching the condition but found " + found.size()
                    + ", first " + found.get(0));
        }
        return this;
    }

    /** Some event has this type ("TopicCreated", "BrokerStopped", "GroupStateChanged", ...). */
    public TimelineAssert hasEvent(String type) {
        if (actual.stream().noneMatch(e -> e.type().equals(type))) {
            fail("to have an event " + type);
        }
        return this;
    }

    /** Some event has this type and details containing {@code detailsContaining}. */
    public TimelineAssert hasEvent(String type, String detailsContaining) {
        if (actual.stream().noneMatch(e -> e.type().equals(type) && e.details().contains(detailsContaining))) {
            fail("to have an event " + type + " with details containing \"" + detailsContaining + "\"");
        }
        return this;
    }

    public TimelineAssert doesNotHaveEvent(String type) {
        List<TimedEvent> found = actual.stream().filter(e -> e.type().equals(type)).toList();
        if (!found.isEmpty()) {
            fail("to have no event " + type + " but found " + found.size() + ", first " + found.get(0));
        }
        return this;
    }

    /** Events of these types occur in this order, with any other events before, between and after them. */
    public TimelineAssert hasEventsInOrder(String... types) {
        int next = 0;
        for (TimedEvent e : actual) {
            if (next < types.length && e.type().equals(types[next])) {
                next++;
            }
        }
        if (next < types.length) {
            fail("to have events " + Arrays.toString(types) + " in this order, but after "
                    + Arrays.toString(Arrays.copyOf(types, next)) + " no " + types[next] + " follows");
        }
        return this;
    }

    /** The events, for any other AssertJ list assertion. */
    public ListAssert<TimedEvent> events() {
        return Assertions.assertThat(actual).as(descriptionText().isEmpty() ? "cluster timeline" : descriptionText());
    }

    private void fail(String expectation) {
        String timeline = actual.isEmpty() ? "  (empty)"
                : actual.stream().map(e -> "  " + e).collect(Collectors.joining("\n"));
        failWithMessage("%s", "Expected the cluster timeline " + expectation + ".\nActual timeline:\n" + timeline);
    }
}
