package dev.samsa.wire;

import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * One decoded request and the way to answer it. Exactly one of {@link #respond}, {@link #respondNothing} or
 * {@link #closeConnection} takes effect; later calls are ignored, so a delayed operation and its timeout can race
 * safely on the loop.
 */
public final class KafkaRequest {

    /** Where the answer goes: the connection writes answers in request order. */
    public interface Responder {
        void complete(KafkaRequest request, ApiMessage response);

        void completeWithoutResponse(KafkaRequest request);

        void closeConnection(KafkaRequest request, String reason);
    }

    private final RequestHeader header;
    private final AbstractRequest body;
    private final String clientAddress;
    private final Responder responder;
    private final String listenerName;
    private final KafkaPrincipal principal;
    private final AtomicBoolean completed = new AtomicBoolean();

    /** A request on the default PLAINTEXT listener, from the anonymous principal. */
    public KafkaRequest(RequestHeader header, AbstractRequest body, String clientAddress, Responder responder) {
        this(header, body, clientAddress, responder, "PLAINTEXT", KafkaPrincipal.ANONYMOUS);
    }

    /**
     * @param listenerName the listener the client connected to, whose addresses answers carrying brokers advertise
     * @param principal who the connection authenticated as (TLS client certificate or SASL), ANONYMOUS otherwise
     */
    public KafkaRequest(RequestHeader header, AbstractRequest body, String clientAddress, Responder responder,
                        String listenerName, KafkaPrincipal principal) {
        this.header = header;
        this.body = body;
        this.clientAddress = clientAddress;
        this.responder = responder;
        this.listenerName = listenerName;
        this.principal = principal;
    }

    public String listenerName() {
        return listenerName;
    }

    public KafkaPrincipal principal() {
        return principal;
    }

    public RequestHeader header() {
        return header;
    }

    public ApiKeys apiKey() {
        return header.apiKey();
    }

    public short version() {
        return header.apiVersion();
    }

    public String clientId() {
        return header.clientId();
    }

    public String clientAddress() {
        return clientAddress;
    }

    public AbstractRequest body() {
        return body;
    }

    @SuppressWarnings("unchecked")
    public <T extends ApiMessage> T data() {
        return (T) body.data();
    }

    public boolean isCompleted() {
        return completed.get();
    }

    public void respond(ApiMessage response) {
        if (completed.compareAndSet(false, true)) {
            responder.complete(this, response);
        }
    }

    /** Answers the whole request with one error, the way Kafka does for an exception it did not expect. */
    public void respondWithError(Throwable error) {
        Throwable answered = error;
        if (error instanceof ApiException && error.getMessage() != null
                && error.getMessage().length() > MAX_ERROR_MESSAGE_CHARS) {
            answered = Errors.forException(error).exception(fitErrorMessage(error.getMessage()));
        }
        respond(body.getErrorResponse(0, answered).data());
    }

    /** Longest error message sent: the message often quotes the client's input, which may be 32,767 characters. */
    public static final int MAX_ERROR_MESSAGE_CHARS = 1_000;

    /**
     * {@code message}, cut to {@value #MAX_ERROR_MESSAGE_CHARS} characters when longer, so that an error message
     * quoting a client's string always fits the field (an int16 length before the flexible versions).
     */
    public static String fitErrorMessage(String message) {
        if (message == null || message.length() <= MAX_ERROR_MESSAGE_CHARS) {
            return message;
        }
        return message.substring(0, MAX_ERROR_MESSAGE_CHARS) + "... (" + message.length() + " characters)";
    }

    public void respondWithError(Errors error) {
        respondWithError(error.exception());
    }

    public void respondNothing() {
        if (completed.compareAndSet(false, true)) {
            responder.completeWithoutResponse(this);
        }
    }

    public void closeConnection(String reason) {
        if (completed.compareAndSet(false, true)) {
            responder.closeConnection(this, reason);
        }
    }

    @Override
    public String toString() {
        return header.apiKey() + " v" + header.apiVersion() + " (correlation id " + header.correlationId() + ") from "
                + describeClient();
    }

    public String describeClient() {
        return "client '" + header.clientId() + "' at " + clientAddress;
    }
}
