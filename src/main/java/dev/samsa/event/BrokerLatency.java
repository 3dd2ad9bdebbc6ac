package dev.samsa.event;

import java.time.Duration;

/** A fault: a broker answers every request this much later; zero heals it. */
public record BrokerLatency(int brokerId, Duration latency) implements ClusterEvent {

    @Override
    public String type() {
        return latency.isZero() ? "FaultHealed" : "FaultApplied";
    }

    @Override
    public String details() {
        return "latency of broker=" + brokerId + " " + latency.toMillis() + " ms";
    }
}
