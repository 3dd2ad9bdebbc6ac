package dev.samsa.event;

/** A fault: the next {@code count} requests of {@code api} will be answered with {@code error}. */
public record FailuresScheduled(String api, String error, int count) implements ClusterEvent {

    @Override
    public String type() {
        return "FaultApplied";
    }

    @Override
    public String details() {
        return "fail next " + count + " " + api + " with " + error;
    }
}
