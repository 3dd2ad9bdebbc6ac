package dev.samsa.handler;

import dev.samsa.wire.KafkaRequest;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * SaslAuthenticate v0-2. The SASL exchange itself is run by the connection (network/SaslAuthenticator:
 * SASL_AUTHENTICATION_FAILED with Kafka's message; from v1 the session lifetime, connections.max.reauth.ms, for
 * KIP-368 re-authentication); what reaches the broker is a SaslAuthenticate after authentication, or on a listener
 * without SASL, which KafkaApis answers with ILLEGAL_SASL_STATE, as here.
 */
final class SaslAuthenticateHandler implements ApiHandler {

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.SASL_AUTHENTICATE;
    }

    @Override
    public void handle(KafkaRequest request, BrokerContext broker) {
        request.respond(new SaslAuthenticateResponseData().setErrorCode(Errors.ILLEGAL_SASL_STATE.code())
                .setErrorMessage("SaslAuthenticate request received after successful authentication"));
    }
}
