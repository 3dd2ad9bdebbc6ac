package dev.samsa;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * One plain TCP connection to a broker that speaks the Kafka protocol with kafka-clients' request and response
 * classes and nothing else: no metadata, no retries, no client-side checks, so a test sees exactly what the broker
 * answers. Requests carry client id {@value #CLIENT_ID} and correlation ids counting up from 1; frames are
 * length-prefixed with 4 bytes. For malformed input the raw frame and byte access stays open to the test.
 */
public final class RawConnection implements AutoCloseable {

    static final String CLIENT_ID = "raw-test";

    private final Socket socket;
    private final DataInputStream in;
    private final DataOutputStream out;
    private int nextCorrelationId = 1;
    private ApiVersionsResponse apiVersions;

    private RawConnection(Socket socket) throws IOException {
        this.socket = socket;
        this.in = new DataInputStream(socket.getInputStream());
        this.out = new DataOutputStream(socket.getOutputStream());
    }

    /** Connects to a broker on 127.0.0.1; reads time out after 10 s so a silent broker fails the test, not hangs it. */
    static RawConnection connect(int port) throws IOException {
        Socket socket = new Socket("127.0.0.1", port);
        try {
            socket.setSoTimeout(10_000);
            return new RawConnection(socket);
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    public static RawConnection connect(Broker broker) throws IOException {
        return connect(broker.port());
    }

    /**
     * Sends one request (at the version it was built with) and reads its answer, which must carry the request's
     * correlation id.
     */
    @SuppressWarnings("unchecked")
    public <T extends AbstractResponse> T send(AbstractRequest request) throws IOException {
        RequestHeader header = nextHeader(request.apiKey(), request.version());
        writeFrame(request.serializeWithHeader(header));
        return (T) receive(header);
    }

    /** A request header of this connection: client id {@value #CLIENT_ID}, the next correlation id. */
    RequestHeader nextHeader(ApiKeys apiKey, short version) {
        return new RequestHeader(apiKey, version, CLIENT_ID, nextCorrelationId++);
    }

    /** Reads the answer to a request sent by hand with {@link #writeFrame}; its correlation id must match. */
    @SuppressWarnings("unchecked")
    <T extends AbstractResponse> T receive(RequestHeader request) throws IOException {
        ByteBuffer frame = readFrame();
        int correlationId = frame.getInt(frame.position());
        if (correlationId != request.correlationId()) {
            throw new AssertionError("Response correlation id " + correlationId + " does not match request "
                    + request.correlationId() + " (" + request.apiKey() + " v" + request.apiVersion() + ")");
        }
        return (T) AbstractResponse.parseResponse(frame, request);
    }

    /**
     * The highest version of {@code apiKey} that both this kafka-clients and the broker know, from one ApiVersions
     * exchange per connection.
     */
    short latestVersion(ApiKeys apiKey) throws IOException {
        if (apiVersions == null) {
            apiVersions = send(new ApiVersionsRequest.Builder().build(ApiKeys.API_VERSIONS.latestVersion()));
        }
        ApiVersion broker = apiVersions.data().apiKeys().find(apiKey.id);
        if (broker == null) {
            throw new AssertionError("The broker does not support " + apiKey);
        }
        return (short) Math.min(broker.maxVersion(), apiKey.latestVersion());
    }

    /** Writes one frame: the 4-byte size, then the payload's remaining bytes. */
    void writeFrame(ByteBuffer payload) throws IOException {
        ByteBuffer bytes = payload.duplicate();
        byte[] array = new byte[bytes.remaining()];
        bytes.get(array);
        out.writeInt(array.length);
        out.write(array);
        out.flush();
    }

    /** Writes a 4-byte big-endian int, such as a (bad) frame size, as it stands. */
    void writeInt(int value) throws IOException {
        out.writeInt(value);
        out.flush();
    }

    /** Writes bytes as they stand, no framing. */
    void writeRaw(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** Closes the sending side only: the broker sees end of stream. */
    void shutdownOutput() throws IOException {
        socket.shutdownOutput();
    }

    /** One whole response frame, its 4-byte size stripped. */
    ByteBuffer readFrame() throws IOException {
        byte[] frame = new byte[in.readInt()];
        in.readFully(frame);
        return ByteBuffer.wrap(frame);
    }

    /**
     * True once the broker has closed the connection, false if it stays silent for 100 ms; a byte of answer instead
     * fails the test. Meant to be polled.
     */
    boolean closedByPeer() throws IOException {
        int timeout = socket.getSoTimeout();
        socket.setSoTimeout(100);
        try {
            int b = in.read();
            if (b >= 0) {
                throw new AssertionError("The broker answered (first byte " + b + ") instead of closing the connection");
            }
            return true;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true; // reset by the broker
        } finally {
            if (!socket.isClosed()) {
                socket.setSoTimeout(timeout);
            }
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
