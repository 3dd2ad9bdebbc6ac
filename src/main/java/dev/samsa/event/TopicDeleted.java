package dev.samsa.event;

/** A topic was deleted. */
public record TopicDeleted(String topic, String topicId) implements ClusterEvent {

    @Override
    public String details() {
        return topic + " id=" + topicId;
    }
}
