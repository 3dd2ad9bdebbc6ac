package dev.samsa.event;

/** A topic was created. */
public record TopicCreated(String topic, int partitions, int replicationFactor,
        String topicId) implements ClusterEvent {

    @Override
    public String details() {
        return topic + " partitions=" + partitions + " replicationFactor=" + replicationFactor + " id=" + topicId;
    }
}
