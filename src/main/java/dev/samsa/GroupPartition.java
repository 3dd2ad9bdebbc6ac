package dev.samsa;

/** A topic and partition, as the public API names one (kafka-clients' TopicPartition stays out of it). */
public record GroupPartition(String topic, int partition) implements Comparable<GroupPartition> {

    @Override
    public int compareTo(GroupPartition o) {
        int c = topic.compareTo(o.topic);
        return c != 0 ? c : Integer.compare(partition, o.partition);
    }

    @Override
    public String toString() {
        return topic + "-" + partition;
    }
}
