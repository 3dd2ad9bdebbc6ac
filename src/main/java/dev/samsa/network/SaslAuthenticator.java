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
 * SASL_AUTHENTICATION_FAILED with Kafka's message) and then the connection closes. After a SaslHandshake v0 the SASL
 * tokens come as raw size-prefixed frames, before KIP-152's SaslAuthenticate, and a refused one closes unanswered.
 *
 * <p>Re-authentication (KIP-368): with connections.max.reauth.ms above 0 the session lifetime goes to the client
 * (SaslAuthenticate v1+), a SaslHandshake on an authenticated connection starts a re-authentication with the same
 * mechanism and the same principal, and once the session has expired (in wall time: the client's timer is a wall-time
 * one) any other request closes the connection, as Kafka's broker does. With 0, Kafka's default, the session never
 * expires and SaslHandshake and SaslAuthenticate go to the broker, whose handlers answer ILLEGAL_SASL_STATE as
 * KafkaApis does. A re-authentication that asks for another mechanism is refused with UNSUPPORTED_SASL_MECHANISM
 * at the handshake (Kafka refuses it one step later, at the SaslAuthenticate).
 *
 * <p>It runs on the connection's reader thread, which alone touches it: the client waits for each answer before it
 * sends its next authentication request.
 */
final class SaslAuthenticator {

    /** What the connection does with a request on a SASL listener: answer it here, close, or hand it to the broker. */
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

    /** The answer to a raw SASL token (after a SaslHandshake v0): a token to send (or none), or a reason to close. */
    record RawStep(byte[] token, String closeReason) {
    }

    private enum State { HANDSHAKE_OR_VERSIONS_REQUEST, AUTHENTICATE, COMPLETE }

    private final ListenerSecurity listener;
    private State state = State.HANDSHAKE_OR_VERSIONS_REQUEST;
    private String mechanism;
    private SaslServer server;
    private KafkaPrincipal principal = KafkaPrincipal.ANONYMOUS;
    private boolean reauthenticating;
    /** After a SaslHandshake v0 the tokens come without Kafka headers (before KIP-152's SaslAuthenticate). */
    private boolean rawTokens;
    private long sessionExpiresAtNanos;

    SaslAuthenticator(ListenerSecurity listener) {
        this.listener = listener;
    }

    KafkaPrincipal principal() {
        return principal;
    }

    /** @param nowNanos the cluster loop's wall time (ClusterLoop.wallNanos): clients re-authenticate on wall time */
    Step authenticate(KafkaRequest request, long nowNanos) {
        ApiKeys apiKey = request.apiKey();
        if (state == State.COMPLETE) {
            if (listener.maxReauthenticationMs() == 0) {
                return Step.DISPATCH;
            }
            if (apiKey == ApiKeys.SASL_HANDSHAKE) {
                reauthenticating = true;
                return handshake(request.data());
            }
            if (nowNanos - sessionExpiresAtNanos > 0) {
                return Step.close("its SASL session expired after connections.max.reauth.ms="
                        + listener.maxReauthenticationMs() + " without re-authentication");
            }
            return Step.DISPATCH;
        }
        if (state == State.HANDSHAKE_OR_VERSIONS_REQUEST) {
            return switch (apiKey) {
                case API_VERSIONS -> Step.DISPATCH;
                case SASL_HANDSHAKE -> {
                    rawTokens = request.version() == 0;
                    yield handshake(request.data());
                }
                default -> Step.close("Unexpected Kafka request of type " + apiKey + " during SASL handshake.");
            };
        }
        if (apiKey != ApiKeys.SASL_AUTHENTICATE) {
            String message = "Unexpected Kafka request of type " + apiKey + " during SASL authentication.";
            return Step.answerAndClose(request.body().getErrorResponse(0, new IllegalSaslStateException(message)).data(), message);
        }
        return saslToken(request.data(), request.version(), nowNanos);
    }

    boolean expectsRawToken() {
        return rawTokens && state == State.AUTHENTICATE;
    }

    /** One raw token; Kafka closes the connection unanswered when the SASL server refuses it. */
    RawStep rawToken(byte[] token, long nowNanos) {
        try {
            byte[] answer = server.evaluateResponse(token);
            if (server.isComplete()) {
                state = State.COMPLETE;
                principal = new KafkaPrincipal(KafkaPrincipal.USER_TYPE, server.getAuthorizationID());
                sessionExpiresAtNanos = nowNanos + listener.maxReauthenticationMs() * 1_000_000;
            }
            return new RawStep(answer, null);
        } catch (SaslException | SaslAuthenticationException e) {
            return new RawStep(null, "SASL " + mechanism + " authentication failed (raw tokens after SaslHandshake v0): "
                    + e.getMessage());
        }
    }

    private Step handshake(SaslHandshakeRequestData data) {
        List<String> enabled = listener.saslMechanisms();
        SaslHandshakeResponseData response = new SaslHandshakeResponseData().setMechanisms(enabled);
        if (!enabled.contains(data.mechanism()) || reauthenticating && !data.mechanism().equals(mechanism)) {
            return Step.answerAndClose(response.setErrorCode(Errors.UNSUPPORTED_SASL_MECHANISM.code()),
                    reauthenticating ? "SASL mechanism '" + data.mechanism() + "' requested by client is not supported "
                            + "for re-authentication of mechanism '" + mechanism + "'"
                            : "Unsupported SASL mechanism " + data.mechanism());
        }
        mechanism = data.mechanism();
        server = listener.credentials().newServer(mechanism);
        state = State.AUTHENTICATE;
        return Step.answer(response.setErrorCode(Errors.NONE.code()));
    }

    private Step saslToken(SaslAuthenticateRequestData data, short version, long nowNanos) {
        try {
            byte[] token = server.evaluateResponse(data.authBytes());
            long lifetimeMs = 0;
            if (server.isComplete()) {
                KafkaPrincipal authenticated = new KafkaPrincipal(KafkaPrincipal.USER_TYPE, server.getAuthorizationID());
                if (reauthenticating && !authenticated.equals(principal)) {
                    throw new SaslAuthenticationException(String.format(
                            "Cannot change principals during re-authentication from %s.%s: %s.%s",
                            principal.getPrincipalType(), principal.getName(),
                            authenticated.getPrincipalType(), authenticated.getName()));
                }
                state = State.COMPLETE;
                principal = authenticated;
                lifetimeMs = listener.maxReauthenticationMs();
                sessionExpiresAtNanos = nowNanos + lifetimeMs * 1_000_000;
            }
            // A v0 client cannot re-authenticate; its session still expires, and then its connection closes.
            return Step.answer(new SaslAuthenticateResponseData().setErrorCode(Errors.NONE.code())
                    .setAuthBytes(token == null ? new byte[0] : token).setSessionLifetimeMs(version > 0 ? lifetimeMs : 0));
        } catch (SaslAuthenticationException e) {
            return failed(e.getMessage());
        } catch (SaslException e) {
            // Kafka does not send the SASL server's own message: it may tell whether the user exists.
            return failed("Authentication failed during " + (reauthenticating ? "re-authentication" : "authentication")
                    + " due to invalid credentials with SASL mechanism " + mechanism);
        }
    }

    private Step failed(String message) {
        return Step.answerAndClose(new SaslAuthenticateResponseData()
                .setErrorCode(Errors.SASL_AUTHENTICATION_FAILED.code()).setErrorMessage(message), message);
    }
}
