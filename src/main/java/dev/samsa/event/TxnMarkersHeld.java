package dev.samsa.event;

/**
 * A fault: the transaction markers of one partition ({@code topic} and {@code partition}), or of every partition led by
 * broker {@code leader} ({@code topic} null), are held back; they queue until released.
 */
public record TxnMarkersHeld(String topic, int partition, int leader) implements ClusterEvent {

    @Override
    public String type() {
        return "FaultApplied";
    }

    @Override
    public String details() {
        return "hold transaction markers of " + (topic == null ? "partitions led by broker=" + leader : topic + "-" + partition);
    }
}
