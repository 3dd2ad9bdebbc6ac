package dev.samsa.event;

/** A partition's high watermark moved; a run of moves with nothing in between reads as its latest. */
public record HighWatermark(String topic, int partition, long highWatermark) implements ClusterEvent {

    @Override
    public String details() {
        return topic + "-" + partition + " hw=" + highWatermark;
    }
}
