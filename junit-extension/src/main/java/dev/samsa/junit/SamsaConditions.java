package dev.samsa.junit;

import dev.samsa.GroupPartition;
import dev.samsa.GroupState;
import dev.samsa.KafkaCluster;
import dev.samsa.event.TimedEvent;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;

/**
 * Conditions on a cluster for Awaitility, and the waiting defaults Samsa's helpers share.
 *
 * <pre>{@code
 * awaitCluster().until(highWatermarkReached(cluster, "orders", 0, 3));
 * await().atMost(Duration.ofSeconds(5)).untilAsserted(eventRecorded(cluster, "BrokerStopped"));
 * }</pre>
 *
 * Each condition is a {@link ClusterCondition}: a {@code Callable<Boolean>} for {@code until}, and for
 * {@code untilAsserted} an assertion whose timeout message says what it waited for and what it saw last.
 *
 * <p>They read the cluster's own state ({@link KafkaCluster#partition}, {@link KafkaCluster#group},
 * {@link KafkaCluster#events}), which is cheap, so polling often costs nothing.
 */
public final class SamsaConditions {

    /** How long Samsa's helpers wait by default: long enough for a loaded CI machine, short enough to fail a test. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

    /** How often {@link #awaitCluster()} evaluates a condition; the cluster answers in well under this. */
    public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofMillis(50);

    private SamsaConditions() {
    }

    /**
     * Awaitility with Samsa's defaults: at most {@link #DEFAULT_TIMEOUT}, evaluated at once and then every
     * {@link #DEFAULT_POLL_INTERVAL}. Chain Awaitility's own settings to change any of them.
     */
    public static ConditionFactory awaitCluster() {
        return Awaitility.await().atMost(DEFAULT_TIMEOUT).pollDelay(Duration.ZERO).pollInterval(DEFAULT_POLL_INTERVAL);
    }

    /** The timeline has an event of this type ("TopicCreated", "BrokerStopped", ...). */
    public static ClusterCondition eventRecorded(KafkaCluster cluster, String type) {
        return eventMatching(cluster, "an event " + type, e -> e.type().equals(type));
    }

    /** The timeline has an event of this type whose details contain {@code detailsContaining}. */
    public static ClusterCondition eventRecorded(KafkaCluster cluster, String type, String detailsContaining) {
        return eventMatching(cluster, "an event " + type + " with details containing \"" + detailsContaining + "\"",
                e -> e.type().equals(type) && e.details().contains(detailsContaining));
    }

    /** The partition's high watermark is at least {@code offset}: records below it are committed and readable. */
    public static ClusterCondition highWatermarkReached(KafkaCluster cluster, String topic, int partition, long offset) {
        return ClusterCondition.of("high watermark of " + topic + "-" + partition + " >= " + offset,
                () -> cluster.partition(topic, partition).highWatermark(), hw -> hw >= offset);
    }

    /** The partition has exactly {@code size} in-sync replicas. */
    public static ClusterCondition isrSize(KafkaCluster cluster, String topic, int partition, int size) {
        return ClusterCondition.of("ISR of " + topic + "-" + partition + " has " + size + " replica(s)",
                () -> cluster.partition(topic, partition).isr(), isr -> isr.size() == size);
    }

    /** Some broker leads the partition. */
    public static ClusterCondition leaderElected(KafkaCluster cluster, String topic, int partition) {
        return ClusterCondition.of("a leader for " + topic + "-" + partition,
                () -> cluster.partition(topic, partition).leader(), leader -> leader != -1);
    }

    /** The consumer group is Stable: every member joined and received its assignment. */
    public static ClusterCondition groupStable(KafkaCluster cluster, String groupId) {
        return groupInState(cluster, groupId, GroupState.STABLE);
    }

    public static ClusterCondition groupInState(KafkaCluster cluster, String groupId, GroupState state) {
        return ClusterCondition.of("group " + groupId + " " + state, () -> cluster.group(groupId), g -> g.state() == state);
    }

    /** The group committed at least {@code offset} for the partition. */
    public static ClusterCondition committedOffsetReached(KafkaCluster cluster, String groupId, String topic, int partition,
                                                           long offset) {
        GroupPartition gp = new GroupPartition(topic, partition);
        return ClusterCondition.of("group " + groupId + " committed " + gp + " >= " + offset,
                () -> cluster.group(groupId).committed().get(gp), committed -> committed != null && committed >= offset);
    }

    private static ClusterCondition eventMatching(KafkaCluster cluster, String what, Predicate<TimedEvent> predicate) {
        return ClusterCondition.<List<TimedEvent>>of("timeline has " + what, () -> cluster.events().events(),
                events -> events.stream().anyMatch(predicate),
                events -> events.size() + " events, the last " + (events.isEmpty() ? "none" : events.get(events.size() - 1)));
    }
}
