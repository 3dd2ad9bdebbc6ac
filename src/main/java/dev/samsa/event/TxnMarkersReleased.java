package dev.samsa.event;

/** A fault healed: held transaction markers (as in {@link TxnMarkersHeld}) go out again, {@code queued} of them waiting. */
public record TxnMarkersReleased(String topic, int partition, int leader, int queued) implements ClusterEvent {

    @Override
    public String type() {
        return "FaultHealed";
    }

    @Override
    public String details() {
        return "release transaction markers of " + (topic == null ? "partitions led by broker=" + leader : topic + "-" + partition)
                + " queued=" + queued;
    }
}
