package dev.samsa.event;

/** A fault healed: an isolated broker is reachable again. */
public record IsolationHealed(int brokerId) implements ClusterEvent {

    @Override
    public String type() {
        return "FaultHealed";
    }

    @Override
    public String details() {
        return "isolation of broker=" + brokerId;
    }
}
