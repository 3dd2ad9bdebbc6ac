package dev.samsa.network;

import dev.samsa.security.ListenerSecurity;
import dev.samsa.wire.KafkaRequest;
import dev.samsa.wire.RequestCodec;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.LongSupplier;
import javax.net.ssl.SSLSocket;
import javax.security.auth.x500.X500Principal;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.network.Send;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection: a reader that frames and decodes requests, and a writer that encodes and writes answers
 * strictly in request order, however late each answer is completed on the cluster loop, each on a pooled thread
 * ({@link ConnectionThreads}). Fetched records go from the segment's mapping to the socket without a copy
 * ({@link ResponseSink}); every answer lets go of them once written or dropped. Anything wrong with the bytes closes
 * this connection only, with one log line at WARN naming the client and the reason (Kafka logs every bad frame, at
 * WARN or ERROR with a stack trace; here anything more about the same connection goes to DEBUG, so a misbehaving
 * client cannot fill the test's log). A client that goes away, even inside a frame, is logged at DEBUG, as Kafka's
 * Selector logs a disconnection.
 *
 * <p>A frame's size is checked against {@link FrameLimits} before a byte of it is read, and its bytes go into an
 * array that grows as they arrive: a client's declared size alone never costs the JVM memory.
 *
 * <p>Neither thread dies of an unexpected failure (a bug, or a {@link LinkageError} from a broken classpath): a
 * request that can still be answered gets UNKNOWN_SERVER_ERROR, otherwise the connection is closed, so the client
 * fails fast instead of waiting; the failure is logged once and handed to {@code onUnexpected}.
 */
final class Connection implements KafkaRequest.Responder {

    private static final Logger log = LoggerFactory.getLogger(Connection.class);

    /** An answer slot in request order; {@code response == null && !close} means "nothing to send" (acks=0). */
    private record Reply(CompletableFuture<Outcome> outcome) {
    }

    /**
     * {@code request == null} ends the writer (the connection is closing), unless the outcome is a raw SASL token
     * to send (after a SaslHandshake v0), which has no request.
     */
    private record Outcome(KafkaRequest request, ApiMessage response, String closeReason, byte[] saslToken) {

        Outcome(KafkaRequest request, ApiMessage response, String closeReason) {
            this(request, response, closeReason, null);
        }
    }

    private static final Reply END = new Reply(CompletableFuture.completedFuture(null));

    /** Enough for a burst of small requests in one read; larger frames are read straight into their own array. */
    static final int READ_BUFFER_BYTES = 64 * 1024;

    /**
     * A frame's first array holds at most this much; it doubles each time it is full and more is to come, up to the
     * frame's size, so a frame costs at most twice the bytes that have arrived.
     */
    static final int FIRST_FRAME_CHUNK_BYTES = 64 * 1024;

    private final Socket socket;
    private final String name;
    private final String clientAddress;
    private final RequestDispatcher dispatcher;
    private final FrameLimits limits;
    private final Runnable onClose;
    private final java.util.function.Consumer<Throwable> onUnexpected;
    private final BlockingQueue<Reply> replies = new LinkedBlockingQueue<>();
    private final java.util.Map<KafkaRequest, CompletableFuture<Outcome>> pending = new java.util.concurrent.ConcurrentHashMap<>();
    private volatile boolean closed;
    /** Set by the first WARN about this client: later lines about the same connection go to DEBUG. */
    private final java.util.concurrent.atomic.AtomicBoolean warned = new java.util.concurrent.atomic.AtomicBoolean();
    /** Set once the writer stopped: from then on, answers completed late release their record bytes themselves. */
    private volatile boolean writerDone;
    private final ListenerSecurity security;
    /** Null on a listener without SASL: the PLAINTEXT path pays one null check per request. */
    private final SaslAuthenticator authenticator;
    private final LongSupplier wallNanos;
    private KafkaPrincipal principal = KafkaPrincipal.ANONYMOUS;

    Connection(Socket socket, String name, RequestDispatcher dispatcher, FrameLimits limits, Runnable onClose,
               java.util.function.Consumer<Throwable> onUnexpected, ListenerSecurity security, WallClock wall) {
        this.onUnexpected = onUnexpected;
        this.security = security;
        this.wallNanos = wall.nanos();
        this.authenticator = security.usesSasl() ? new SaslAuthenticator(security, wall.epochMillis()) : null;
        this.socket = socket;
        this.name = name;
        this.clientAddress = socket.getRemoteSocketAddress().toString();
        this.dispatcher = dispatcher;
        this.limits = limits;
        this.onClose = onClose;
    }

    /**
     * Serves the connection on two pooled threads ({@link ConnectionThreads}) that see {@code loader} as their context
     * class loader; both go back to the pool when the connection closes: the reader's blocking read ends when the
     * socket closes, the writer at {@code END}.
     */
    void start(ClassLoader loader) {
        ConnectionThreads.run(name + "-writer", loader, this::writeLoop);
        ConnectionThreads.run(name + "-reader", loader, this::readLoop);
    }

    private void readLoop() {
        boolean byPeer = false;
        try {
            if (socket instanceof SSLSocket tls && !handshake(tls)) {
                return;
            }
            // Not closed here: after an answer that ends the connection the reader stops, and the writer closes.
            DataInputStream in = new DataInputStream(new ReusedBufferInputStream(socket.getInputStream(),
                    ConnectionThreads.readBuffer(READ_BUFFER_BYTES)));
            while (!closed) {
                int size;
                try {
                    size = in.readInt();
                } catch (EOFException e) {
                    byPeer = true;
                    break;
                }
                if (!sizeAccepted(size)) {
                    return;
                }
                byte[] frame = readFrame(in, size);
                if (frame == null) {
                    log.debug("Connection {} from {} ended inside a frame of {} bytes", name, clientAddress, size);
                    byPeer = true;
                    break;
                }
                if (authenticator != null && authenticator.expectsRawToken()) {
                    if (!rawSaslToken(frame)) {
                        return;
                    }
                } else if (!decodeAndDispatch(ByteBuffer.wrap(frame))) {
                    return;
                }
            }
        } catch (IOException e) {
            if (!closed) {
                byPeer = true;
                log.debug("Connection {} from {} ended: {}", name, clientAddress, e.toString());
            }
        } catch (Throwable e) {
            unexpected("reading a request", e);
        }
        boolean wasOpen = !closed;
        close();
        if (byPeer && wasOpen) {
            // The client closed it (or its process died): proof that it stopped talking, which group liveness uses.
            dispatcher.connectionClosed(clientAddress);
        }
    }

    /**
     * Whether a frame of {@code size} bytes may be read; if not, the connection closes as Kafka closes it: a request
     * over socket.request.max.bytes is an InvalidReceiveException (Kafka's Selector: "Unexpected error from ...;
     * closing connection", at WARN), and on a SASL listener before authentication completes a frame over
     * sasl.server.max.receive.size fails the authentication (SaslServerAuthenticator, logged at INFO as a failed
     * authentication).
     */
    private boolean sizeAccepted(int size) {
        boolean authenticating = authenticator != null && authenticator.authenticating();
        String refusal = limits.refusal(size, authenticating);
        if (refusal == null) {
            return true;
        }
        if (authenticating) {
            String message = "Failing SASL authentication due to invalid receive size";
            log.info("Failed authentication with {} on {} ({}: {}, sasl.server.max.receive.size)", clientAddress, name,
                    message, refusal);
            reportFailure(authenticator.failure(message));
            close();
        } else {
            reject("Unexpected error: " + refusal + ", socket.request.max.bytes", null);
        }
        return false;
    }

    /**
     * The {@code size} bytes of a frame, in an array that starts at {@link #FIRST_FRAME_CHUNK_BYTES} at most and
     * doubles only once full, so memory follows the bytes that came rather than the size the client declared.
     *
     * @return null when the stream ends inside the frame
     */
    static byte[] readFrame(DataInputStream in, int size) throws IOException {
        byte[] frame = new byte[Math.min(size, FIRST_FRAME_CHUNK_BYTES)];
        int filled = 0;
        while (true) {
            try {
                in.readFully(frame, filled, frame.length - filled);
            } catch (EOFException e) {
                return null;
            }
            filled = frame.length;
            if (filled == size) {
                return frame;
            }
            frame = java.util.Arrays.copyOf(frame, (int) Math.min(size, 2L * filled));
        }
    }

    /** A buffered stream over the pooled thread's read buffer ({@code buf} is BufferedInputStream's to replace). */
    private static final class ReusedBufferInputStream extends BufferedInputStream {

        ReusedBufferInputStream(InputStream in, byte[] buffer) {
            super(in, 1);
            buf = buffer;
        }
    }

    private boolean decodeAndDispatch(ByteBuffer frame) {
        RequestHeader header;
        try {
            header = RequestCodec.decodeHeader(frame);
        } catch (InvalidRequestException e) {
            reject(e.getMessage(), null);
            return false;
        }
        boolean supported = dispatcher.supports(header.apiKey(), header.apiVersion());
        if (!supported && header.apiKey() != ApiKeys.API_VERSIONS) {
            reject(header.apiKey() + " v" + header.apiVersion() + " is not supported by this broker", header);
            return false;
        }
        AbstractRequest body;
        try {
            body = RequestCodec.decodeBody(header, frame, supported);
        } catch (InvalidRequestException e) {
            reject(e.getMessage(), header);
            return false;
        }
        KafkaRequest request = new KafkaRequest(header, body, clientAddress, this, security.listenerName(), principal);
        if (authenticator != null) {
            SaslAuthenticator.Step step = authenticator.authenticate(request, wallNanos.getAsLong());
            reportFailure(step.failure());
            if (step.response() == null && step.closeReason() != null) {
                reject(step.closeReason(), header);
                return false;
            }
            if (step.response() != null) {
                principal = authenticator.principal();
                replies.add(new Reply(CompletableFuture.completedFuture(new Outcome(request, step.response(), step.closeReason()))));
                return step.closeReason() == null;
            }
        }
        CompletableFuture<Outcome> outcome = new CompletableFuture<>();
        pending.put(request, outcome);
        replies.add(new Reply(outcome));
        try {
            dispatcher.dispatch(request);
        } catch (Throwable e) {
            unexpected("handing " + request + " to the cluster loop", e);
            request.respondWithError(e);
        }
        return true;
    }

    /**
     * A SASL token after a SaslHandshake v0: size-prefixed bytes without a Kafka header, answered the same way; a
     * refused one closes the connection unanswered, as Kafka does.
     */
    private boolean rawSaslToken(byte[] token) {
        SaslAuthenticator.RawStep step = authenticator.rawToken(token, wallNanos.getAsLong());
        reportFailure(step.failure());
        if (step.closeReason() != null) {
            reject(step.closeReason(), null);
            return false;
        }
        principal = authenticator.principal();
        if (step.token() != null) {
            replies.add(new Reply(CompletableFuture.completedFuture(new Outcome(null, null, null, step.token()))));
        }
        return true;
    }

    /**
     * The TLS handshake, before any request: a client that does not trust this broker's certificate, or whose own
     * certificate this broker does not trust, is refused here, and sees an SslAuthenticationException.
     */
    private boolean handshake(SSLSocket tls) {
        try {
            tls.startHandshake();
            if (security.clientAuthRequired()) {
                String dn = ((X500Principal) tls.getSession().getPeerPrincipal()).getName();
                principal = new KafkaPrincipal(KafkaPrincipal.USER_TYPE, security.principalMapper().getName(dn));
            }
            return true;
        } catch (IOException e) {
            log.info("Failed authentication with {} on {} (SSL handshake failed): {}", clientAddress, name, e.getMessage());
            reportFailure(new SaslAuthenticator.Failure("TLS", null, "SSL handshake failed: " + e.getMessage()));
            close();
            return false;
        }
    }

    private void reportFailure(SaslAuthenticator.Failure failure) {
        if (failure != null) {
            dispatcher.authenticationFailed(security.listenerName(), failure.mechanism(), failure.principal(),
                    failure.message());
        }
    }

    /** A fault: this connection's SASL session counts as expired, so its next request closes it (see SaslAuthenticator). */
    void expireSaslSession() {
        if (authenticator != null) {
            authenticator.expireSession();
        }
    }

    /** Logs once, with what to do, and records the failure for the test. */
    private void unexpected(String what, Throwable e) {
        String hint = e instanceof LinkageError
                ? "A LinkageError means the classes the broker was built with are not the ones on the classpath "
                        + "(often a different kafka-clients version); "
                : "This is a Samsa bug; ";
        log.error("Unexpected failure {} on connection {} from {}; {}please report it with this stack trace. "
                + "KafkaCluster.internalErrors() keeps it, and the broker goes on.", what, name, clientAddress, hint, e);
        onUnexpected.accept(e);
    }

    private void reject(String reason, RequestHeader header) {
        logClosing(header == null ? clientAddress : "client '" + header.clientId() + "' at " + clientAddress, reason);
        close();
    }

    /** The first line about what this client did wrong goes to WARN, the rest to DEBUG. */
    private void logClosing(String client, String reason) {
        if (warned.compareAndSet(false, true)) {
            log.warn("Closing connection from {}: {}", client, reason);
        } else {
            log.debug("Closing connection from {}: {}", client, reason);
        }
    }

    private void writeLoop() {
        try {
            ResponseSink out = ResponseSink.of(socket);
            while (true) {
                // Whatever is buffered goes out before the writer waits, whether for the next request or for the
                // answer of this one: an answer never sits behind a slot that sends nothing (acks=0).
                Reply reply = replies.poll();
                if (reply == null) {
                    out.flush();
                    reply = replies.take();
                }
                if (reply == END) {
                    break;
                }
                if (!reply.outcome.isDone()) {
                    out.flush();
                }
                Outcome outcome = reply.outcome.join();
                if (outcome.saslToken != null) {
                    out.write(ByteBuffer.allocate(4 + outcome.saslToken.length).putInt(outcome.saslToken.length)
                            .put(outcome.saslToken).flip());
                    continue;
                }
                if (closed || outcome.request == null) {
                    release(outcome);
                    break;
                }
                if (outcome.response != null && !send(outcome, out)) {
                    break;
                }
                if (outcome.closeReason != null) {
                    // An answer that ends the connection (a failed authentication) goes out first, as Kafka sends it.
                    out.flush();
                    logClosing(outcome.request.describeClient(), outcome.closeReason);
                    break;
                }
            }
            out.flush();
        } catch (IOException e) {
            log.debug("Connection {} from {} ended while writing: {}", name, clientAddress, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Throwable e) {
            unexpected("writing a response", e);
        }
        writerDone = true;
        replies.forEach(r -> {
            if (r.outcome.isDone() && r != END) {
                release(r.outcome.join());
            }
        });
        close();
    }

    /**
     * Writes one answer, its record bytes straight from where they lie, and then lets them go; an answer that cannot
     * be encoded is replaced by the request's UNKNOWN_SERVER_ERROR answer, and when even that fails, false closes the
     * connection.
     */
    private boolean send(Outcome outcome, ResponseSink out) throws IOException {
        KafkaRequest request = outcome.request;
        try {
            Send send;
            try {
                send = RequestCodec.responseSend(request.header(), request.body().version(), outcome.response);
            } catch (Throwable e) {
                unexpected("encoding the answer to " + request + "; answering UNKNOWN_SERVER_ERROR instead", e);
                try {
                    send = RequestCodec.responseSend(request.header(), request.body().version(),
                            request.body().getErrorResponse(0, e).data());
                } catch (Throwable again) {
                    logClosing(request.describeClient(), "no error answer to " + request + " could be encoded either: "
                            + again);
                    return false;
                }
            }
            while (!send.completed()) {
                send.writeTo(out);
            }
            return true;
        } finally {
            release(outcome);
        }
    }

    private static void release(Outcome outcome) {
        if (outcome != null && outcome.response != null) {
            RequestCodec.releaseRecords(outcome.response);
        }
    }

    @Override
    public void complete(KafkaRequest request, ApiMessage response) {
        finish(request, new Outcome(request, response, null));
    }

    @Override
    public void completeWithoutResponse(KafkaRequest request) {
        finish(request, new Outcome(request, null, null));
    }

    @Override
    public void closeConnection(KafkaRequest request, String reason) {
        finish(request, new Outcome(request, null, reason));
    }

    private void finish(KafkaRequest request, Outcome outcome) {
        CompletableFuture<Outcome> future = pending.remove(request);
        if (future != null) {
            future.complete(outcome);
        }
        if (future == null || writerDone) {
            // Never to be written (the connection closed first): its record bytes are let go here.
            release(outcome);
        }
    }

    void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing is all we wanted
        }
        replies.add(END);
        pending.values().forEach(f -> f.complete(new Outcome(null, null, "closed")));
        pending.clear();
        onClose.run();
    }
}
