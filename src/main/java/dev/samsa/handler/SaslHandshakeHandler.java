package dev.samsa.handler;

import dev.samsa.wire.KafkaRequest;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * SaslHandshake v0-1. On a SASL listener the handshake is answered by the connection, before authentication and
 * for a re-authentication (network/SaslAuthenticator); what reaches the broker is a handshake on a connection that
 * needs none (PLAINTEXT, SSL) or has authenticated with re-authentication off (connections.max.reauth.ms=0), which
 * Kafka's KafkaApis answers with ILLEGAL_SASL_STATE, as here.
 * After a v0 handshake the connection reads the SASL tokens raw, without Kafka headers (before KIP-152); librdkafka
 * requires v0 in the advertised range even though it sends v1.
 */
final class SaslHandshakeHandler implements ApiHandler {

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.SASL_HANDSHAKE;
    }

    @Override
    public void handle(KafkaRequest request, BrokerContext broker) {
        request.respond(new SaslHandshakeResponseData().setErrorCode(Errors.ILLEGAL_SASL_STATE.code()));
    }
}
