package dev.samsa.event;

/** A fault: a broker is cut off from clients, from the other brokers (fenced), or both. */
public record BrokerIsolated(int brokerId, boolean fromClients, boolean fromBrokers) implements ClusterEvent {

    @Override
    public String type() {
        return "FaultApplied";
    }

    @Override
    public String details() {
        return "isolate broker=" + brokerId + (fromClients ? " from clients" : "")
                + (fromBrokers ? " from brokers" : "");
    }
}
