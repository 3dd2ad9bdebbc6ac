package dev.samsa.network;

import dev.samsa.security.ListenerSecurity;
import dev.samsa.wire.KafkaRequest;
import java.util.List;
import javax.security.sasl.SaslException;
import javax.security.sasl.SaslServer;
import org.apache.kafka.common.errors.IllegalSaslStateException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * One connection's SASL authentication on a SASL_PLAINTEXT or SASL_SSL listener, as Kafka's SaslServerAuthenticator
 * runs it before any request reaches the broker: first ApiVersions or SaslHandshake (anything else closes the
 * connection unanswered), then SaslAuthenticate until the SASL server is satisfied (anything else is answered with
 * ILLEGAL_SASL_STATE and closes it). A refused mechanism or credential is answered (UNSUPPORTED_SASL_MECHANISM,
 * SASL_AUTHENTICATION_FAILED with Kafka's message) and then the connection closes.
 *
 * <p>It runs on the connection's reader thread, which alone touches it: the client waits for each answer before it
 * sends its next authentication request. Once complete, SaslHandshake and SaslAuthenticate go to the broker, whose
 * handlers answer ILLEGAL_SASL_STATE as KafkaApis does: re-authentication (KIP-368) is not served, and the session
 * lifetime is 0, Kafka's default for connections.max.reauth.ms.
 */
final class SaslAuthenticator {

    /** What the connection does with a request that arrived before authentication completed. */
    record Step(ApiMessage response, String closeReason) {

        /** Not an authentication request: the broker answers it (ApiVersions). */
        static final Step DISPATCH = new Step(null, null);

        static Step answer(ApiMessage response) {
            return new Step(response, null);
        }

        static Step answerAndClose(ApiMessage response, String reason) {
            return new Step(response, reason);
        }

        /** Closes the connection without an answer. */
        static Step close(String reason) {
            return new Step(null, reason);
        }
    }

    private enum State { HANDSHAKE_OR_VERSIONS_REQUEST, AUTHENTICATE, COMPLETE }

    private final ListenerSecurity listener;
    private State state = State.HANDSHAKE_OR_VERSIONS_REQUEST;
    private String mechanism;
    private SaslServer server;
    private KafkaPrincipal principal = KafkaPrincipal.ANONYMOUS;

    SaslAuthenticator(ListenerSecurity listener) {
        this.listener = listener;
    }

    boolean isComplete() {
        return state == State.COMPLETE;
    }

    KafkaPrincipal principal() {
        return principal;
    }

    Step authenticate(KafkaRequest request) {
        ApiKeys apiKey = request.apiKey();
        if (state == State.HANDSHAKE_OR_VERSIONS_REQUEST) {
            return switch (apiKey) {
                case API_VERSIONS -> Step.DISPATCH;
                case SASL_HANDSHAKE -> handshake(request.data());
                default -> Step.close("Unexpected Kafka request of type " + apiKey + " during SASL handshake.");
            };
        }
        if (apiKey != ApiKeys.SASL_AUTHENTICATE) {
            String message = "Unexpected Kafka request of type " + apiKey + " during SASL authentication.";
            return Step.answerAndClose(request.body().getErrorResponse(0, new IllegalSaslStateException(message)).data(), message);
        }
        return saslToken(request.data());
    }

    private Step handshake(SaslHandshakeRequestData data) {
        List<String> enabled = listener.saslMechanisms();
        SaslHandshakeResponseData response = new SaslHandshakeResponseData().setMechanisms(enabled);
        if (!enabled.contains(data.mechanism())) {
            return Step.answerAndClose(response.setErrorCode(Errors.UNSUPPORTED_SASL_MECHANISM.code()),
                    "Unsupported SASL mechanism " + data.mechanism());
        }
        mechanism = data.mechanism();
        server = listener.credentials().newServer(mechanism);
        state = State.AUTHENTICATE;
        return Step.answer(response.setErrorCode(Errors.NONE.code()));
    }

    private Step saslToken(SaslAuthenticateRequestData data) {
        try {
            byte[] token = server.evaluateResponse(data.authBytes());
            if (server.isComplete()) {
                state = State.COMPLETE;
                principal = new KafkaPrincipal(KafkaPrincipal.USER_TYPE, server.getAuthorizationID());
            }
            return Step.answer(new SaslAuthenticateResponseData().setErrorCode(Errors.NONE.code())
                    .setAuthBytes(token == null ? new byte[0] : token).setSessionLifetimeMs(0));
        } catch (SaslAuthenticationException e) {
            return failed(e.getMessage());
        } catch (SaslException e) {
            // Kafka does not send the SASL server's own message: it may tell whether the user exists.
            return failed("Authentication failed during authentication due to invalid credentials with SASL mechanism "
                    + mechanism);
        }
    }

    private Step failed(String message) {
        return Step.answerAndClose(new SaslAuthenticateResponseData()
                .setErrorCode(Errors.SASL_AUTHENTICATION_FAILED.code()).setErrorMessage(message), message);
    }
}
