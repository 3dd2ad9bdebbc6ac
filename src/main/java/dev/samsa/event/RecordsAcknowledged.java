package dev.samsa.event;

/**
 * A leader acknowledged records of a partition to a producer; {@code acknowledgedRecords} counts all acknowledged on
 * it so far. It fires triggers ({@code When.acknowledged}) but is never kept on the timeline: one line per produce
 * would drown the rest, and the high watermark line already tells the story.
 */
public record RecordsAcknowledged(String topic, int partition, long acknowledgedRecords) implements ClusterEvent {

    @Override
    public String details() {
        return topic + "-" + partition + " acknowledged=" + acknowledgedRecords;
    }
}
