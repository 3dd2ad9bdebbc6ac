package dev.samsa.junit;

import dev.samsa.KafkaCluster;
import org.apache.kafka.common.serialization.Deserializer;
import org.assertj.core.api.AbstractAssert;

/**
 * Assertions on a running {@link KafkaCluster}; start with {@link SamsaAssertions#assertThat(KafkaCluster)}.
 *
 * <p>Each navigation ({@link #topic}, {@link #partition}, {@link #group}, {@link #timeline}) reads the cluster once, then
 * asserts on that reading, so a chain of assertions sees one consistent state and a failure shows exactly it.
 */
public final class KafkaClusterAssert extends AbstractAssert<KafkaClusterAssert, KafkaCluster> {

    KafkaClusterAssert(KafkaCluster cluster) {
        super(cluster, KafkaClusterAssert.class);
    }

    public KafkaClusterAssert hasBrokers(int expected) {
        isNotNull();
        if (actual.brokers().size() != expected) {
            failWithMessage("%s", "Expected the cluster to have " + expected + " broker(s) but it has " + actual.brokers());
        }
        return this;
    }

    /** Reads the whole topic now, with String values; fails if the topic does not exist. */
    public TopicAssert<String> topic(String name) {
        // The deserializer is made in TopicRecords: naming a kafka-clients class here would make this class unloadable
        // for a test classpath without kafka-clients, where every other assertion still works.
        return topic(name, TopicRecords.stringDeserializer());
    }

    /**
     * Reads the whole topic now, values through {@code valueDeserializer} (which is not closed); fails if the topic
     * does not exist or cannot be read to its end offsets within {@link SamsaConditions#DEFAULT_TIMEOUT}.
     */
    public <V> TopicAssert<V> topic(String name, Deserializer<V> valueDeserializer) {
        isNotNull();
        TopicRecords<V> records = TopicRecords.read(actual, name, valueDeserializer, SamsaConditions.DEFAULT_TIMEOUT);
        if (!records.exists()) {
            failWithMessage("%s", "Expected topic \"" + name + "\" to exist but " + records.describe());
        }
        return carryDescription(new TopicAssert<>(records));
    }

    /** The partition's leader, ISR and high watermark as they are now; fails if there is no such partition. */
    public PartitionAssert partition(String topic, int partition) {
        isNotNull();
        PartitionAssert.State state = null;
        try {
            state = PartitionAssert.State.of(topic, partition, actual.partition(topic, partition));
        } catch (IllegalArgumentException e) {
            failWithMessage("%s", "Expected partition " + topic + "-" + partition + " to exist: " + e.getMessage());
        }
        return carryDescription(new PartitionAssert(state));
    }

    /** A snapshot of the consumer group now; a group that does not exist is Dead with no members. */
    public GroupAssert group(String groupId) {
        isNotNull();
        return carryDescription(new GroupAssert(actual.group(groupId)));
    }

    /** The cluster's event timeline as it is now. */
    public TimelineAssert timeline() {
        isNotNull();
        return carryDescription(new TimelineAssert(actual.events().events()));
    }

    /** What the brokers acknowledged, checked now against the logs: lost and duplicated records. */
    public HistoryAssert history() {
        isNotNull();
        return carryDescription(new HistoryAssert(actual.history()));
    }

    private <A extends AbstractAssert<A, ?>> A carryDescription(A next) {
        return descriptionText().isEmpty() ? next : next.as(descriptionText());
    }
}
