package dev.samsa.event;

/** A broker came up, at the start or on a restart or heal. */
public record BrokerStarted(int brokerId) implements ClusterEvent {

    @Override
    public String details() {
        return "broker=" + brokerId;
    }
}
