package dev.samsa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.samsa.Security.Mechanism;
import dev.samsa.Security.Protocol;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.SaslAuthenticateRequest;
import org.apache.kafka.common.requests.SaslAuthenticateResponse;
import org.apache.kafka.common.requests.SaslHandshakeRequest;
import org.apache.kafka.common.requests.SaslHandshakeResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The SASL state machine of a SASL_PLAINTEXT listener, byte by byte, as Kafka's SaslServerAuthenticator runs it: what
 * is answered, what closes the connection, and what a connection that needs no SASL is told. In this package for
 * {@link RawConnection}.
 */
class SaslListenerTest {

    private static KafkaCluster cluster;

    @BeforeAll
    static void start() {
        cluster = KafkaCluster.builder()
                .security(Security.listeners(Protocol.SASL_PLAINTEXT, Protocol.PLAINTEXT).mechanisms(Mechanism.PLAIN, Mechanism.SCRAM_SHA_256)
                        .user("alice", "alice-secret"))
                .start();
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    private static RawConnection connectSasl() throws Exception {
        return RawConnection.connect(port(Protocol.SASL_PLAINTEXT));
    }

    private static int port(Protocol protocol) {
        String address = cluster.broker(1).address(protocol);
        return Integer.parseInt(address.substring(address.indexOf(':') + 1));
    }

    @Test
    void aRequestBeforeTheHandshakeClosesTheConnectionUnanswered() throws Exception {
        try (RawConnection connection = connectSasl()) {
            connection.writeFrame(MetadataRequest.Builder.allTopics().build((short) 12)
                    .serializeWithHeader(connection.nextHeader(org.apache.kafka.common.protocol.ApiKeys.METADATA, (short) 12)));
            await().atMost(Duration.ofSeconds(10)).until(connection::closedByPeer);
        }
    }

    @Test
    void anUnknownMechanismIsAnsweredWithTheEnabledOnesThenTheConnectionCloses() throws Exception {
        try (RawConnection connection = connectSasl()) {
            SaslHandshakeResponse response = connection.send(handshake("GSSAPI"));
            assertThat(Errors.forCode(response.data().errorCode())).isEqualTo(Errors.UNSUPPORTED_SASL_MECHANISM);
            assertThat(response.data().mechanisms()).containsExactly("PLAIN", "SCRAM-SHA-256");
            await().atMost(Duration.ofSeconds(10)).until(connection::closedByPeer);
        }
    }

    @Test
    void anotherRequestDuringAuthenticationIsIllegalSaslStateThenTheConnectionCloses() throws Exception {
        try (RawConnection connection = connectSasl()) {
            SaslHandshakeResponse handshake = connection.send(handshake("PLAIN"));
            assertThat(Errors.forCode(handshake.data().errorCode())).isEqualTo(Errors.NONE);
            ApiVersionsResponse versions = connection.send(new ApiVersionsRequest.Builder().build((short) 3));
            assertThat(Errors.forCode(versions.data().errorCode())).isEqualTo(Errors.ILLEGAL_SASL_STATE);
            await().atMost(Duration.ofSeconds(10)).until(connection::closedByPeer);
        }
    }

    @Test
    void aWrongPasswordIsAnsweredWithKafkasMessageThenTheConnectionCloses() throws Exception {
        try (RawConnection connection = connectSasl()) {
            connection.send(handshake("PLAIN"));
            SaslAuthenticateResponse response = connection.send(plain("alice", "wrong"));
            assertThat(Errors.forCode(response.data().errorCode())).isEqualTo(Errors.SASL_AUTHENTICATION_FAILED);
            assertThat(response.data().errorMessage()).isEqualTo("Authentication failed: Invalid username or password");
            await().atMost(Duration.ofSeconds(10)).until(connection::closedByPeer);
        }
    }

    @Test
    void anAuthenticatedConnectionIsServedAndAnotherHandshakeIsIllegal() throws Exception {
        try (RawConnection connection = connectSasl()) {
            connection.send(handshake("PLAIN"));
            SaslAuthenticateResponse authenticated = connection.send(plain("alice", "alice-secret"));
            assertThat(Errors.forCode(authenticated.data().errorCode())).isEqualTo(Errors.NONE);
            assertThat(authenticated.data().sessionLifetimeMs()).as("no re-authentication: Kafka's default").isZero();
            MetadataResponse metadata = connection.send(MetadataRequest.Builder.allTopics().build((short) 12));
            assertThat(metadata.brokers()).singleElement().satisfies(b -> assertThat(b.port()).isEqualTo(port(Protocol.SASL_PLAINTEXT)));
            SaslHandshakeResponse again = connection.send(handshake("PLAIN"));
            assertThat(Errors.forCode(again.data().errorCode())).isEqualTo(Errors.ILLEGAL_SASL_STATE);
        }
    }

    @Test
    void afterAVersion0HandshakeTheTokensAreRaw() throws Exception {
        try (RawConnection connection = connectSasl()) {
            SaslHandshakeResponse handshake = connection.send(
                    new SaslHandshakeRequest.Builder(new SaslHandshakeRequestData().setMechanism("PLAIN")).build((short) 0));
            assertThat(Errors.forCode(handshake.data().errorCode())).isEqualTo(Errors.NONE);
            connection.writeFrame(java.nio.ByteBuffer.wrap("\0alice\0alice-secret".getBytes(StandardCharsets.UTF_8)));
            assertThat(connection.readFrame().remaining()).as("PLAIN's empty server token, size-prefixed").isZero();
            MetadataResponse metadata = connection.send(MetadataRequest.Builder.allTopics().build((short) 12));
            assertThat(metadata.brokers()).hasSize(1);
        }
    }

    @Test
    void aWrongRawTokenClosesTheConnectionUnanswered() throws Exception {
        try (RawConnection connection = connectSasl()) {
            connection.send(new SaslHandshakeRequest.Builder(new SaslHandshakeRequestData().setMechanism("PLAIN")).build((short) 0));
            connection.writeFrame(java.nio.ByteBuffer.wrap("\0alice\0wrong".getBytes(StandardCharsets.UTF_8)));
            await().atMost(Duration.ofSeconds(10)).until(connection::closedByPeer);
        }
    }

    @Test
    void aPlaintextConnectionIsToldSaslIsIllegalThere() throws Exception {
        try (RawConnection connection = RawConnection.connect(port(Protocol.PLAINTEXT))) {
            SaslAuthenticateResponse response = connection.send(plain("alice", "alice-secret"));
            assertThat(Errors.forCode(response.data().errorCode())).isEqualTo(Errors.ILLEGAL_SASL_STATE);
            MetadataResponse metadata = connection.send(new MetadataRequest(new MetadataRequestData().setTopics(List.of()), (short) 12));
            assertThat(metadata.brokers()).singleElement().satisfies(b -> assertThat(b.port()).isEqualTo(port(Protocol.PLAINTEXT)));
        }
    }

    private static SaslHandshakeRequest handshake(String mechanism) {
        return new SaslHandshakeRequest.Builder(new SaslHandshakeRequestData().setMechanism(mechanism)).build((short) 1);
    }

    private static SaslAuthenticateRequest plain(String user, String password) {
        byte[] token = ("\0" + user + "\0" + password).getBytes(StandardCharsets.UTF_8);
        return new SaslAuthenticateRequest.Builder(new SaslAuthenticateRequestData().setAuthBytes(token)).build((short) 2);
    }
}
