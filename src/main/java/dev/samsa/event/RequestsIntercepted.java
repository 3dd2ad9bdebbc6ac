package dev.samsa.event;

/** A fault: an interceptor now sees the requests of {@code api} (null: of every API), and may fail or delay them. */
public record RequestsIntercepted(String api) implements ClusterEvent {

    @Override
    public String type() {
        return "FaultApplied";
    }

    @Override
    public String details() {
        return "intercept " + (api == null ? "every request" : api + " requests");
    }
}
