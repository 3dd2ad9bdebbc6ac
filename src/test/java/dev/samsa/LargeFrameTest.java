package dev.samsa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.samsa.Security.Mechanism;
import dev.samsa.Security.Protocol;
import dev.samsa.event.AuthenticationFailed;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.SaslAuthenticateRequest;
import org.apache.kafka.common.requests.SaslAuthenticateResponse;
import org.apache.kafka.common.requests.SaslHandshakeRequest;
import org.apache.kafka.common.requests.SaslHandshakeResponse;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A frame's declared size is bounded as Kafka bounds it (socket.request.max.bytes; sasl.server.max.receive.size
 * before a SASL client has authenticated), and within the bound it costs the broker only the bytes that have arrived:
 * the broker lives in the test's JVM, whose heap a client's 4 bytes must not claim. Heap is judged by behaviour:
 * connections that each declare 1 GiB, all open at once, would need many times the test JVM's heap if the broker
 * took the declared size up front.
 */
class LargeFrameTest {

    private static final int ONE_GIBIBYTE = 1 << 30;
    private static final int SMALL_MAX_REQUEST_BYTES = 4096;
    private static final int SASL_MAX_RECEIVE_BYTES = 524_288;

    /** Kafka's limits, with a SASL_PLAINTEXT listener next to the PLAINTEXT one. */
    private static KafkaCluster defaults;
    /** socket.request.max.bytes at its largest, so that a 1 GiB frame is within it and is read. */
    private static KafkaCluster roomy;
    private static KafkaCluster small;

    @BeforeAll
    static void start() {
        defaults = KafkaCluster.builder().seed(26)
                .security(Security.listeners(Protocol.PLAINTEXT, Protocol.SASL_PLAINTEXT).mechanisms(Mechanism.PLAIN)
                        .user("alice", "alice-secret"))
                .start();
        roomy = KafkaCluster.builder().seed(27).brokerConfig("socket.request.max.bytes", Integer.toString(Integer.MAX_VALUE))
                .start();
        small = KafkaCluster.builder().seed(28)
                .brokerConfig("socket.request.max.bytes", Integer.toString(SMALL_MAX_REQUEST_BYTES)).start();
    }

    @AfterAll
    static void stop() {
        for (KafkaCluster cluster : new KafkaCluster[] {defaults, roomy, small}) {
            if (cluster != null) {
                cluster.close();
            }
        }
    }

    @AfterEach
    void nothingFailedInside() {
        for (KafkaCluster cluster : new KafkaCluster[] {defaults, roomy, small}) {
            assertThat(cluster.internalErrors()).as("internal errors of %s", cluster.bootstrapServers()).isEmpty();
        }
    }

    @Test
    void aOneGibibyteFrameOverTheDefaultLimitClosesItsConnectionAndTheNextConnectionIsServed() throws Exception {
        for (int i = 0; i < 100; i++) {
            try (RawConnection connection = RawConnection.connect(defaults.broker(1))) {
                connection.writeInt(ONE_GIBIBYTE);
                connection.writeRaw(new byte[10]);
                awaitClosedByBroker(connection);
            }
        }
        assertAnswersApiVersions(defaults.broker(1).port());
    }

    @Test
    void oneGibibyteFramesWithinTheLimitCostOnlyTheBytesThatArrived() throws Exception {
        // 32 GiB declared, all open at once: taken up front, that would be many times any test JVM's heap.
        List<RawConnection> stalled = new ArrayList<>();
        try {
            for (int i = 0; i < 32; i++) {
                RawConnection connection = RawConnection.connect(roomy.broker(1));
                stalled.add(connection);
                connection.writeInt(ONE_GIBIBYTE);
                connection.writeRaw(new byte[10]);
            }
            assertAnswersApiVersions(roomy.broker(1).port());
            for (RawConnection connection : stalled) {
                // The client gives up inside its frame: the broker read the size and the bytes, and now sees the end.
                connection.shutdownOutput();
                awaitClosedByBroker(connection);
            }
        } finally {
            for (RawConnection connection : stalled) {
                connection.close();
            }
        }
        assertAnswersApiVersions(roomy.broker(1).port());
    }

    @Test
    void aFrameOneByteOverSocketRequestMaxBytesClosesItsConnection() throws Exception {
        try (RawConnection connection = RawConnection.connect(small.broker(1))) {
            connection.writeFrame(apiVersionsFrame(connection, SMALL_MAX_REQUEST_BYTES + 1));
            awaitClosedByBroker(connection);
        }
        assertAnswersApiVersions(small.broker(1).port());
    }

    @Test
    void aFrameOfExactlySocketRequestMaxBytesIsAnswered() throws Exception {
        try (RawConnection connection = RawConnection.connect(small.broker(1))) {
            RequestHeader header = connection.nextHeader(ApiKeys.API_VERSIONS, (short) 3);
            connection.writeFrame(apiVersionsFrame(header, SMALL_MAX_REQUEST_BYTES));
            ApiVersionsResponse response = connection.receive(header);
            assertThat(Errors.forCode(response.data().errorCode())).isEqualTo(Errors.NONE);
        }
    }

    @Test
    void beforeAuthenticationAFrameOverSaslServerMaxReceiveSizeFailsTheAuthentication() throws Exception {
        try (RawConnection connection = RawConnection.connect(saslPort())) {
            connection.writeInt(SASL_MAX_RECEIVE_BYTES + 1);
            connection.writeRaw(new byte[10]);
            awaitClosedByBroker(connection);
        }
        AuthenticationFailed failed = defaults.events().await(AuthenticationFailed.class,
                e -> e.message().contains("invalid receive size"), Duration.ofSeconds(10));
        assertThat(failed.listener()).isEqualTo("SASL_PLAINTEXT");
        assertThat(failed.message()).isEqualTo("Failing SASL authentication due to invalid receive size");
    }

    @Test
    void beforeAuthenticationAFrameOfExactlySaslServerMaxReceiveSizeIsAnswered() throws Exception {
        try (RawConnection connection = RawConnection.connect(saslPort())) {
            RequestHeader header = connection.nextHeader(ApiKeys.API_VERSIONS, (short) 3);
            connection.writeFrame(apiVersionsFrame(header, SASL_MAX_RECEIVE_BYTES));
            ApiVersionsResponse response = connection.receive(header);
            assertThat(Errors.forCode(response.data().errorCode())).isEqualTo(Errors.NONE);
        }
    }

    @Test
    void afterAuthenticationFramesOverSaslServerMaxReceiveSizeAreAnswered() throws Exception {
        try (RawConnection connection = RawConnection.connect(saslPort())) {
            SaslHandshakeResponse handshake = connection.send(new SaslHandshakeRequest.Builder(
                    new SaslHandshakeRequestData().setMechanism("PLAIN")).build((short) 1));
            assertThat(Errors.forCode(handshake.data().errorCode())).isEqualTo(Errors.NONE);
            byte[] token = "\0alice\0alice-secret".getBytes(StandardCharsets.UTF_8);
            SaslAuthenticateResponse authenticated = connection.send(new SaslAuthenticateRequest.Builder(
                    new SaslAuthenticateRequestData().setAuthBytes(token)).build((short) 2));
            assertThat(Errors.forCode(authenticated.data().errorCode())).isEqualTo(Errors.NONE);

            RequestHeader header = connection.nextHeader(ApiKeys.API_VERSIONS, (short) 3);
            connection.writeFrame(apiVersionsFrame(header, 4 * SASL_MAX_RECEIVE_BYTES));
            ApiVersionsResponse response = connection.receive(header);
            assertThat(Errors.forCode(response.data().errorCode())).isEqualTo(Errors.NONE);
        }
    }

    private static int saslPort() {
        String address = defaults.broker(1).address(Protocol.SASL_PLAINTEXT);
        return Integer.parseInt(address.substring(address.indexOf(':') + 1));
    }

    private static void assertAnswersApiVersions(int port) throws IOException {
        try (RawConnection connection = RawConnection.connect(port)) {
            ApiVersionsResponse response = connection.send(new ApiVersionsRequest.Builder().build((short) 3));
            assertThat(Errors.forCode(response.data().errorCode())).isEqualTo(Errors.NONE);
        }
    }

    private static ByteBuffer apiVersionsFrame(RawConnection connection, int frameSize) {
        return apiVersionsFrame(connection.nextHeader(ApiKeys.API_VERSIONS, (short) 3), frameSize);
    }

    /** An ApiVersions v3 request padded with zeros to {@code frameSize} bytes (Kafka ignores bytes after a body). */
    private static ByteBuffer apiVersionsFrame(RequestHeader header, int frameSize) {
        ByteBuffer request = new ApiVersionsRequest(new ApiVersionsRequestData().setClientSoftwareName("large-frame-test")
                .setClientSoftwareVersion("1.0"), (short) 3).serializeWithHeader(header);
        ByteBuffer frame = ByteBuffer.allocate(frameSize);
        frame.put(request).position(0);
        return frame;
    }

    private static void awaitClosedByBroker(RawConnection connection) {
        awaiting().until(connection::closedByPeer);
    }

    /** Awaitility would otherwise swap in its own default uncaught-exception handler while it waits. */
    private static ConditionFactory awaiting() {
        return await().pollDelay(Duration.ZERO).atMost(Duration.ofSeconds(10)).dontCatchUncaughtExceptions();
    }
}
