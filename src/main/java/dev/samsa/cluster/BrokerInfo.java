package dev.samsa.cluster;

/** What clients learn of a broker: id, address and rack. */
public record BrokerInfo(int id, String host, int port, String rack) {
}
