package dev.samsa.event;

/** A fault: every SASL session on a broker was expired early; each connection's next request closes it. */
public record SaslSessionsExpired(int brokerId) implements ClusterEvent {

    @Override
    public String type() {
        return "FaultApplied";
    }

    @Override
    public String details() {
        return "expired SASL sessions of broker=" + brokerId;
    }
}
