package dev.samsa.network;

import dev.samsa.wire.KafkaRequest;
import dev.samsa.wire.RequestCodec;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection: a reader thread that frames and decodes requests, and a writer thread that encodes and
 * writes answers strictly in request order, however late each answer is completed on the cluster loop. Anything wrong
 * with the bytes closes this connection only, with one log line naming the client and the reason.
 */
final class Connection implements KafkaRequest.Responder {

    private static final Logger log = LoggerFactory.getLogger(Connection.class);

    /** An answer slot in request order; {@code response == null && !close} means "nothing to send" (acks=0). */
    private record Reply(CompletableFuture<Outcome> outcome) {
    }

    private record Outcome(RequestHeader header, ApiMessage response, String closeReason) {
    }

    private static final Reply END = new Reply(CompletableFuture.completedFuture(null));

    private final Socket socket;
    private final String name;
    private final String clientAddress;
    private final RequestDispatcher dispatcher;
    private final int maxRequestBytes;
    private final Runnable onClose;
    private final BlockingQueue<Reply> replies = new LinkedBlockingQueue<>();
    private final java.util.Map<KafkaRequest, CompletableFuture<Outcome>> pending = new java.util.concurrent.ConcurrentHashMap<>();
    private volatile boolean closed;

    Connection(Socket socket, String name, RequestDispatcher dispatcher, int maxRequestBytes, Runnable onClose) {
        this.socket = socket;
        this.name = name;
        this.clientAddress = socket.getRemoteSocketAddress().toString();
        this.dispatcher = dispatcher;
        this.maxRequestBytes = maxRequestBytes;
        this.onClose = onClose;
    }

    void start() {
        Thread reader = new Thread(this::readLoop, name + "-reader");
        Thread writer = new Thread(this::writeLoop, name + "-writer");
        reader.setDaemon(true);
        writer.setDaemon(true);
        reader.start();
        writer.start();
    }

    private void readLoop() {
        boolean byPeer = false;
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream(), 64 * 1024))) {
            while (!closed) {
                int size;
                try {
                    size = in.readInt();
                } catch (EOFException e) {
                    byPeer = true;
                    break;
                }
                if (size < 0 || size > maxRequestBytes) {
                    reject("frame of " + size + " bytes, larger than socket.request.max.bytes=" + maxRequestBytes
                            + " or negative", null);
                    return;
                }
                byte[] frame = new byte[size];
                try {
                    in.readFully(frame);
                } catch (EOFException e) {
                    reject("connection ended inside a frame of " + size + " bytes", null);
                    return;
                }
                if (!decodeAndDispatch(ByteBuffer.wrap(frame))) {
                    return;
                }
            }
        } catch (IOException e) {
            if (!closed) {
                byPeer = true;
                log.debug("Connection {} from {} ended: {}", name, clientAddress, e.toString());
            }
        } catch (RuntimeException e) {
            log.warn("Closing connection from {}: unexpected failure reading a request", clientAddress, e);
        }
        boolean wasOpen = !closed;
        close();
        if (byPeer && wasOpen) {
            // The client closed it (or its process died): proof that it stopped talking, which group liveness uses.
            dispatcher.connectionClosed(clientAddress);
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
        KafkaRequest request = new KafkaRequest(header, body, clientAddress, this);
        CompletableFuture<Outcome> outcome = new CompletableFuture<>();
        pending.put(request, outcome);
        replies.add(new Reply(outcome));
        dispatcher.dispatch(request);
        return true;
    }

    private void reject(String reason, RequestHeader header) {
        String client = header == null ? clientAddress : "client '" + header.clientId() + "' at " + clientAddress;
        log.warn("Closing connection from {}: {}", client, reason);
        close();
    }

    private void writeLoop() {
        try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream(), 64 * 1024))) {
            while (true) {
                Reply reply = replies.take();
                if (reply == END) {
                    break;
                }
                Outcome outcome = reply.outcome.join();
                if (closed || outcome.header == null) {
                    break;
                }
                if (outcome.closeReason != null) {
                    log.warn("Closing connection from client '{}' at {}: {}", outcome.header.clientId(), clientAddress,
                            outcome.closeReason);
                    break;
                }
                if (outcome.response == null) {
                    continue;
                }
                ByteBuffer bytes = RequestCodec.encodeResponse(outcome.header, outcome.response);
                out.writeInt(bytes.remaining());
                out.write(bytes.array(), bytes.arrayOffset() + bytes.position(), bytes.remaining());
                if (replies.isEmpty() || !replies.peek().outcome.isDone()) {
                    out.flush();
                }
            }
            out.flush();
        } catch (IOException e) {
            log.debug("Connection {} from {} ended while writing: {}", name, clientAddress, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            log.warn("Closing connection from {}: unexpected failure writing a response", clientAddress, e);
        }
        close();
    }

    @Override
    public void complete(KafkaRequest request, ApiMessage response) {
        finish(request, new Outcome(request.header(), response, null));
    }

    @Override
    public void completeWithoutResponse(KafkaRequest request) {
        finish(request, new Outcome(request.header(), null, null));
    }

    @Override
    public void closeConnection(KafkaRequest request, String reason) {
        finish(request, new Outcome(request.header(), null, reason));
    }

    private void finish(KafkaRequest request, Outcome outcome) {
        CompletableFuture<Outcome> future = pending.remove(request);
        if (future != null) {
            future.complete(outcome);
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
