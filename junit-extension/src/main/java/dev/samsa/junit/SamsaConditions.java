package dev.samsa.junit;

import dev.samsa.GroupPartition;
import dev.samsa.GroupState;
import dev.samsa.KafkaCluster;
import dev.samsa.event.ClusterEvent;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Predicate;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionFactory;

/**
 * Conditions on a cluster for Awaitility, and the waiting defaults Samsa's helpers share.
 *
 * <pre>{@code
 * awaitCluster().until(highWatermarkReached(cluster, "orders", 0, 3));
 * await().atMost(Duration.ofSeconds(5)).until(eventRecorded(cluster, "BrokerStopped"));
 * }</pre>
 *
 * Each condition's {@code toString} says what it waits for and what it saw last, so a timeout names both.
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
    public static Callable<Boolean> eventRecorded(KafkaCluster cluster, String type) {
        return eventMatching(cluster, "an event " + type, e -> e.type().equals(type));
    }

    /** The timeline has an event of this type whose details contain {@code detailsContaining}. */
    public static Callable<Boolean> eventRecorded(KafkaCluster cluster, String type, String detailsContaining) {
        return eventMatching(cluster, "an event " + type + " with details containing \"" + detailsContaining + "\"",
                e -> e.type().equals(type) && e.details().contains(detailsContaining));
    }

    /** The partition's high watermark is at least {@code offset}: records below it are committed and readable. */
    public static Callable<Boolean> highWatermarkReached(KafkaCluster cluster, String topic, int partition, long offset) {
        return new Observing<>("high watermark of " + topic + "-" + partition + " >= " + offset,
                () -> cluster.partition(topic, partition).highWatermark(), hw -> hw >= offset);
    }

    /** The partition has exactly {@code size} in-sync replicas. */
    public static Callable<Boolean> isrSize(KafkaCluster cluster, String topic, int partition, int size) {
        return new Observing<>("ISR of " + topic + "-" + partition + " has " + size + " replica(s)",
                () -> cluster.partition(topic, partition).isr(), isr -> isr.size() == size);
    }

    /** Some broker leads the partition. */
    public static Callable<Boolean> leaderElected(KafkaCluster cluster, String topic, int partition) {
        return new Observing<>("a leader for " + topic + "-" + partition,
                () -> cluster.partition(topic, partition).leader(), leader -> leader != -1);
    }

    /** The consumer group is Stable: every member joined and received its assignment. */
    public static Callable<Boolean> groupStable(KafkaCluster cluster, String groupId) {
        return groupInState(cluster, groupId, GroupState.STABLE);
    }

    public static Callable<Boolean> groupInState(KafkaCluster cluster, String groupId, GroupState state) {
        return new Observing<>("group " + groupId + " " + state, () -> cluster.group(groupId), g -> g.state() == state);
    }

    /** The group committed at least {@code offset} for the partition. */
    public static Callable<Boolean> committedOffsetReached(KafkaCluster cluster, String groupId, String topic, int partition,
                                                           long offset) {
        GroupPartition gp = new GroupPartition(topic, partition);
        return new Observing<>("group " + groupId + " committed " + gp + " >= " + offset,
                () -> cluster.group(groupId).committed().get(gp), committed -> committed != null && committed >= offset);
    }

    private static Callable<Boolean> eventMatching(KafkaCluster cluster, String what, Predicate<ClusterEvent> predicate) {
        return new Observing<List<ClusterEvent>>("timeline has " + what, () -> cluster.events().events(),
                events -> events.stream().anyMatch(predicate)) {
            @Override
            String show(List<ClusterEvent> events) {
                return events.size() + " events, the last " + (events.isEmpty() ? "none" : events.get(events.size() - 1));
            }
        };
    }

    /** A condition that remembers the last value it saw, for the timeout message. */
    private static class Observing<T> implements Callable<Boolean> {
        private final String description;
        private final Callable<T> observe;
        private final Predicate<T> done;
        private volatile T last;
        private volatile boolean observed;

        Observing(String description, Callable<T> observe, Predicate<T> done) {
            this.description = description;
            this.observe = observe;
            this.done = done;
        }

        @Override
        public Boolean call() throws Exception {
            T value = observe.call();
            last = value;
            observed = true;
            return done.test(value);
        }

        String show(T value) {
            return String.valueOf(value);
        }

        @Override
        public String toString() {
            return description + " (last seen: " + (observed ? show(last) : "nothing yet") + ")";
        }
    }
}
