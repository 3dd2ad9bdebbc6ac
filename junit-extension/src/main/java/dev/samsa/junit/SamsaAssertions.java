package dev.samsa.junit;

import dev.samsa.KafkaCluster;
import dev.samsa.event.ClusterTimeline;

/**
 * AssertJ entry points for Samsa; they sit beside AssertJ's own {@code assertThat} in a static import.
 *
 * <pre>{@code
 * assertThat(cluster).topic("orders").hasRecordCount(3).containsValues("created", "paid");
 * assertThat(cluster).timeline().hasEventsInOrder("TopicCreated", "BrokerStopped");
 * }</pre>
 */
public final class SamsaAssertions {

    private SamsaAssertions() {
    }

    public static KafkaClusterAssert assertThat(KafkaCluster cluster) {
        return new KafkaClusterAssert(cluster);
    }

    public static TimelineAssert assertThat(ClusterTimeline timeline) {
        return new TimelineAssert(timeline.events());
    }
}
