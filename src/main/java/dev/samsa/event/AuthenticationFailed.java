package dev.samsa.event;

/**
 * A client failed to authenticate to a broker (a SASL exchange, or the TLS handshake with mechanism "TLS") and its
 * connection was closed.
 *
 * @param principal who the client claimed to be ("User:alice"), null when unknown
 * @param message Kafka's message, as the client got it when it got one
 */
public record AuthenticationFailed(int brokerId, String listener, String mechanism, String principal, String message)
        implements ClusterEvent {

    @Override
    public String details() {
        return "broker=" + brokerId + " listener=" + listener + " mechanism=" + mechanism
                + (principal == null ? "" : " principal=" + principal) + " message=" + message;
    }
}
