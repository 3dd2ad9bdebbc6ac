package dev.samsa.event;

/** A fault: a broker closed every client connection. */
public record ClientConnectionsDropped(int brokerId) implements ClusterEvent {

    @Override
    public String type() {
        return "FaultApplied";
    }

    @Override
    public String details() {
        return "dropped client connections of broker=" + brokerId;
    }
}
