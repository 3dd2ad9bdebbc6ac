package dev.samsa.event;

/** A request was answered with an injected error instead of being served. */
public record FaultInjected(String api, int brokerId, String error) implements ClusterEvent {

    @Override
    public String details() {
        return api + " to broker=" + brokerId + " answered " + error;
    }
}
