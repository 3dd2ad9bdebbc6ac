package dev.samsa.event;

/** A fault healed: the test removed an interceptor of the requests of {@code api} (null: of every API). */
public record InterceptionRemoved(String api) implements ClusterEvent {

    @Override
    public String type() {
        return "FaultHealed";
    }

    @Override
    public String details() {
        return "interception of " + (api == null ? "every request" : api + " requests") + " removed";
    }
}
