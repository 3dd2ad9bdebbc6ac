package dev.samsa.network;

import dev.samsa.wire.KafkaRequest;
import org.apache.kafka.common.protocol.ApiKeys;

/** What a connection hands its decoded requests to; called on the connection's reader thread. */
public interface RequestDispatcher {

    /** Whether this broker serves {@code apiKey} at {@code version}, as its ApiVersions response advertises. */
    boolean supports(ApiKeys apiKey, short version);

    void dispatch(KafkaRequest request);

    /** The client at {@code clientAddress} closed its connection (not the broker); called once, on a network thread. */
    default void connectionClosed(String clientAddress) {
    }

    /**
     * A client failed to authenticate on {@code listener} (a SASL exchange or the TLS handshake), before any of its
     * requests reached the broker; called on a network thread.
     *
     * @param principal who the client claimed to be, as "User:name", or null when unknown
     * @param message Kafka's message, as the client got it when it got one
     */
    default void authenticationFailed(String listener, String mechanism, String principal, String message) {
    }
}
