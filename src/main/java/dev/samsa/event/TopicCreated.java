package dev.samsa.event;

import java.util.List;

/**
 * A topic was created, with its partitions' first leaders and ISRs and its {@code min.insync.replicas} then (0 when not
 * known), so a reader of the timeline knows each partition's state before its first change.
 */
public record TopicCreated(String topic, int partitions, int replicationFactor, String topicId, int minInsyncReplicas,
        List<PartitionState> initial) implements ClusterEvent {

    public TopicCreated {
        initial = List.copyOf(initial);
    }

    public TopicCreated(String topic, int partitions, int replicationFactor, String topicId) {
        this(topic, partitions, replicationFactor, topicId, 0, List.of());
    }

    @Override
    public String details() {
        return topic + " partitions=" + partitions + " replicationFactor=" + replicationFactor + " id=" + topicId;
    }
}
