package dev.samsa.network;

import dev.samsa.security.ListenerSecurity;
import dev.samsa.wire.KafkaRequest;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.LongSupplier;
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
import org.apache.kafka.common.security.authenticator.SaslInternalConfigs;

/**
 * One connection's SASL authentication on a SASL_PLAINTEXT or SASL_SSL listener, as Kafka's SaslServerAuthenticator
 * runs it before any request reaches the broker: first ApiVersions or SaslHandshake (anything else closes the
 * connection unanswered), then SaslAuthenticate until the SASL server is satisfied (anything else is answered with
 * ILLEGAL_SASL_STATE and closes it). A refused mechanism or credential is answered (UNSUPPORTED_SASL_MECHANISM,
 * SASL_AUTHENTICATION_FAILED with Kafka's message) and then the connection closes. After a SaslHandshake v0 the SASL
 * tokens come as raw size-prefixed frames, before KIP-152's SaslAuthenticate, and a refused one closes unanswered.
 *
 * <p>Re-authentication (KIP-368): a session has a lifetime when connections.max.reauth.ms is above 0 or the credential
 * expires (an OAUTHBEARER token), the shorter of the two as Kafka's ReauthInfo computes it; the lifetime goes to the
 * client (SaslAuthenticate v1+), a SaslHandshake on an authenticated connection starts a re-authentication with the
 * same mechanism and the same principal, and once the session has expired (in wall time: the client's timer is a
 * wall-time one) any other request closes the connection, as Kafka's broker does. A session without a lifetime never
 * expires and SaslHandshake and SaslAuthenticate go to the broker, whose handlers answer ILLEGAL_SASL_STATE as
 * KafkaApis does. A fault may expire a session early ({@link #expireSession()}): the next request closes the
 * connection, as if its lifetime had run out. A re-authentication that asks for another mechanism is refused with UNSUPPORTED_SASL_MECHANISM
 * at the handshake (Kafka refuses it one step later, at the SaslAuthenticate).
 *
 * <p>It runs on the connection's reader thread, which alone touches it (but for the fault's flag): the client waits for
 * each answer before it sends its next authentication request.
 */
final class SaslAuthenticator {

    /** A refused authentication, for the timeline: who it claimed to be when known, and Kafka's message. */
    record Failure(String mechanism, String principal, String message) {
    }

    /** What the connection does with a request on a SASL listener: answer it here, close, or hand it to the broker. */
    record Step(ApiMessage response, String closeReason, Failure failure) {

        /** Not an authentication request: the broker answers it (ApiVersions). */
        static final Step DISPATCH = new Step(null, null, null);

        static Step answer(ApiMessage response) {
            return new Step(response, null, null);
        }

        static Step answerAndClose(ApiMessage response, String reason, Failure failure) {
            return new Step(response, reason, failure);
        }

        /** Closes the connection without an answer. */
        static Step close(String reason) {
            return new Step(null, reason, null);
        }
    }

    /** The answer to a raw SASL token (after a SaslHandshake v0): a token to send (or none), or a reason to close. */
    record RawStep(byte[] token, String closeReason, Failure failure) {
    }

    private enum State { HANDSHAKE_OR_VERSIONS_REQUEST, AUTHENTICATE, COMPLETE }

    private final ListenerSecurity listener;
    private final LongSupplier epochMillis;
    private State state = State.HANDSHAKE_OR_VERSIONS_REQUEST;
    private String mechanism;
    private SaslServer server;
    private KafkaPrincipal principal = KafkaPrincipal.ANONYMOUS;
    /** The user name the client's first token claims (PLAIN, SCRAM), for the timeline when it is refused. */
    private String claimedUser;
    private boolean reauthenticating;
    /** After a SaslHandshake v0 the tokens come without Kafka headers (before KIP-152's SaslAuthenticate). */
    private boolean rawTokens;
    /** Null while the session has no lifetime (Kafka's sessionExpirationTimeNanos). */
    private Long sessionExpiresAtNanos;
    private volatile boolean expiredByFault;

    /** @param epochMillis the cluster loop's epoch wall time, which credentials' expiry (a token's exp) is read in */
    SaslAuthenticator(ListenerSecurity listener, LongSupplier epochMillis) {
        this.listener = listener;
        this.epochMillis = epochMillis;
    }

    KafkaPrincipal principal() {
        return principal;
    }

    /** A fault: the session counts as expired from now on, until the client re-authenticates. */
    void expireSession() {
        expiredByFault = true;
    }

    /** @param nowNanos the cluster loop's wall time (ClusterLoop.wallNanos): clients re-authenticate on wall time */
    Step authenticate(KafkaRequest request, long nowNanos) {
        ApiKeys apiKey = request.apiKey();
        if (state == State.COMPLETE) {
            if (apiKey == ApiKeys.SASL_HANDSHAKE && sessionExpiresAtNanos != null) {
                reauthenticating = true;
                return handshake(request.data());
            }
            if (expiredByFault) {
                return Step.close("its SASL session was expired early by a fault");
            }
            if (sessionExpiresAtNanos != null && nowNanos - sessionExpiresAtNanos > 0) {
                return Step.close("its SASL session expired (connections.max.reauth.ms="
                        + listener.maxReauthenticationMs() + " or the credential's expiry) without re-authentication");
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
            return Step.answerAndClose(request.body().getErrorResponse(0, new IllegalSaslStateException(message)).data(),
                    message, failure(message));
        }
        return saslToken(request.data(), request.version(), nowNanos);
    }

    /**
     * Whether the client has yet to complete its authentication, or is re-authenticating: until then Kafka's
     * SaslServerAuthenticator reads every frame itself, bounded by sasl.server.max.receive.size.
     */
    boolean authenticating() {
        return state != State.COMPLETE;
    }

    boolean expectsRawToken() {
        return rawTokens && state == State.AUTHENTICATE;
    }

    /** One raw token; Kafka closes the connection unanswered when the SASL server refuses it. */
    RawStep rawToken(byte[] token, long nowNanos) {
        try {
            byte[] answer = evaluate(token);
            if (server.isComplete()) {
                complete(nowNanos);
            }
            return new RawStep(answer, null, null);
        } catch (SaslException | SaslAuthenticationException e) {
            String message = "SASL " + mechanism + " authentication failed (raw tokens after SaslHandshake v0): "
                    + e.getMessage();
            return new RawStep(null, message, failure(message));
        }
    }

    private Step handshake(SaslHandshakeRequestData data) {
        List<String> enabled = listener.saslMechanisms();
        SaslHandshakeResponseData response = new SaslHandshakeResponseData().setMechanisms(enabled);
        if (!enabled.contains(data.mechanism()) || reauthenticating && !data.mechanism().equals(mechanism)) {
            String message = reauthenticating ? "SASL mechanism '" + data.mechanism() + "' requested by client is not "
                    + "supported for re-authentication of mechanism '" + mechanism + "'"
                    : "Unsupported SASL mechanism " + data.mechanism();
            return Step.answerAndClose(response.setErrorCode(Errors.UNSUPPORTED_SASL_MECHANISM.code()), message,
                    new Failure(data.mechanism(), reauthenticating ? principal.toString() : null, message));
        }
        mechanism = data.mechanism();
        server = listener.credentials().newServer(mechanism, epochMillis);
        state = State.AUTHENTICATE;
        return Step.answer(response.setErrorCode(Errors.NONE.code()));
    }

    private Step saslToken(SaslAuthenticateRequestData data, short version, long nowNanos) {
        try {
            byte[] token = evaluate(data.authBytes());
            long lifetimeMs = server.isComplete() ? complete(nowNanos) : 0;
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

    private byte[] evaluate(byte[] token) throws SaslException {
        if (claimedUser == null) {
            claimedUser = claimedUser(mechanism, token);
        }
        return server.evaluateResponse(token);
    }

    /**
     * The session is established: its principal, and its lifetime as Kafka's ReauthInfo computes it (the credential's
     * remaining life, connections.max.reauth.ms, or the shorter of the two; none when neither is set).
     *
     * @return the session lifetime to tell the client, 0 for none
     */
    private long complete(long nowNanos) {
        KafkaPrincipal authenticated = new KafkaPrincipal(KafkaPrincipal.USER_TYPE, server.getAuthorizationID());
        if (reauthenticating && !authenticated.equals(principal)) {
            throw new SaslAuthenticationException(String.format(
                    "Cannot change principals during re-authentication from %s.%s: %s.%s",
                    principal.getPrincipalType(), principal.getName(),
                    authenticated.getPrincipalType(), authenticated.getName()));
        }
        state = State.COMPLETE;
        principal = authenticated;
        expiredByFault = false;
        Long credentialExpiresAtMs = (Long) server.getNegotiatedProperty(
                SaslInternalConfigs.CREDENTIAL_LIFETIME_MS_SASL_NEGOTIATED_PROPERTY_KEY);
        long maxReauthMs = listener.maxReauthenticationMs();
        if (credentialExpiresAtMs == null && maxReauthMs <= 0) {
            sessionExpiresAtNanos = null;
            return 0;
        }
        long lifetimeMs = maxReauthMs;
        if (credentialExpiresAtMs != null) {
            long credentialLeftMs = credentialExpiresAtMs - epochMillis.getAsLong();
            lifetimeMs = maxReauthMs > 0 ? Math.min(credentialLeftMs, maxReauthMs) : credentialLeftMs;
        }
        lifetimeMs = Math.max(0, lifetimeMs);
        sessionExpiresAtNanos = nowNanos + lifetimeMs * 1_000_000;
        return lifetimeMs;
    }

    private Step failed(String message) {
        return Step.answerAndClose(new SaslAuthenticateResponseData()
                .setErrorCode(Errors.SASL_AUTHENTICATION_FAILED.code()).setErrorMessage(message), message, failure(message));
    }

    /** A failure with {@code message}, naming the mechanism and who the client claimed to be, once known. */
    Failure failure(String message) {
        String who = reauthenticating ? principal.toString()
                : claimedUser == null ? null : new KafkaPrincipal(KafkaPrincipal.USER_TYPE, claimedUser).toString();
        return new Failure(mechanism, who, message);
    }

    /** The user a PLAIN ({@code authzid NUL authcid NUL password}) or SCRAM ({@code n,,n=user,r=...}) first token names. */
    private static String claimedUser(String mechanism, byte[] token) {
        String text = new String(token, StandardCharsets.UTF_8);
        if ("PLAIN".equals(mechanism)) {
            String[] parts = text.split("\u0000", -1);
            return parts.length == 3 && !parts[1].isEmpty() ? parts[1] : null;
        }
        if (mechanism != null && mechanism.startsWith("SCRAM-")) {
            for (String attribute : text.split(",")) {
                if (attribute.startsWith("n=") && attribute.length() > 2) {
                    return attribute.substring(2).replace("=2C", ",").replace("=3D", "=");
                }
            }
        }
        return null;
    }
}
