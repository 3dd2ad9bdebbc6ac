package dev.samsa.junit;

import dev.samsa.KafkaCluster;
import dev.samsa.event.ClusterEvent;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
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
 * <p>Conditions on partition state (ISR size, leader) and consumer groups (stable) come when {@code KafkaCluster}
 * exposes them; until then {@link #highWatermarkReached} asks the cluster over the wire, as a client would.
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

    /**
     * The partition's high watermark (the end offset a read_uncommitted consumer sees) is at least {@code offset}:
     * records below it are committed and readable.
     */
    public static Callable<Boolean> highWatermarkReached(KafkaCluster cluster, String topic, int partition, long offset) {
        TopicPartition tp = new TopicPartition(topic, partition);
        return new Observing<>("high watermark of " + tp + " >= " + offset, () -> endOffset(cluster, tp), hw -> hw >= offset);
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

    private static long endOffset(KafkaCluster cluster, TopicPartition tp) {
        Map<String, Object> config = cluster.consumerConfig(null);
        config.put("client.id", "samsa-conditions");
        config.put("allow.auto.create.topics", "false");
        try (KafkaConsumer<byte[], byte[]> consumer =
                     new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            return consumer.endOffsets(List.of(tp), DEFAULT_TIMEOUT).get(tp);
        }
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
