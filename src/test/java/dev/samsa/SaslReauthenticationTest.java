package dev.samsa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.samsa.Security.Mechanism;
import dev.samsa.Security.Protocol;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.protocol.Errors;
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
 * KIP-368 with connections.max.reauth.ms=1000: the session lifetime reaches the client, a re-authentication keeps the
 * connection, a changed principal is refused, an expired session closes the connection, and a real producer
 * re-authenticates on its own. Sessions expire in wall time (the client's timer is a wall-time one).
 */
class SaslReauthenticationTest {

    private static final long LIFETIME_MS = 1000;
    private static KafkaCluster cluster;

    @BeforeAll
    static void start() {
        cluster = KafkaCluster.builder()
                .brokerConfig("connections.max.reauth.ms", Long.toString(LIFETIME_MS))
                .security(Security.listeners(Protocol.SASL_PLAINTEXT).mechanisms(Mechanism.PLAIN, Mechanism.SCRAM_SHA_512)
                        .user("alice", "alice-secret").user("bob", "bob-secret"))
                .start();
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    @Test
    void theSessionLifetimeIsSentAndAReauthenticationKeepsTheConnection() throws Exception {
        try (RawConnection connection = authenticated("alice", "alice-secret")) {
            SaslHandshakeResponse handshake = connection.send(handshake("PLAIN"));
            assertThat(Errors.forCode(handshake.data().errorCode())).isEqualTo(Errors.NONE);
            SaslAuthenticateResponse again = connection.send(plain("alice", "alice-secret"));
            assertThat(Errors.forCode(again.data().errorCode())).isEqualTo(Errors.NONE);
            assertThat(again.data().sessionLifetimeMs()).isEqualTo(LIFETIME_MS);
            assertThat(metadata(connection).brokers()).hasSize(1);
        }
    }

    @Test
    void aReauthenticationAsAnotherUserIsRefusedAndClosesTheConnection() throws Exception {
        try (RawConnection connection = authenticated("alice", "alice-secret")) {
            connection.send(handshake("PLAIN"));
            SaslAuthenticateResponse refused = connection.send(plain("bob", "bob-secret"));
            assertThat(Errors.forCode(refused.data().errorCode())).isEqualTo(Errors.SASL_AUTHENTICATION_FAILED);
            assertThat(refused.data().errorMessage())
                    .isEqualTo("Cannot change principals during re-authentication from User.alice: User.bob");
            await().atMost(Duration.ofSeconds(10)).until(connection::closedByPeer);
        }
    }

    @Test
    void aRequestAfterTheSessionExpiredClosesTheConnection() throws Exception {
        try (RawConnection connection = authenticated("alice", "alice-secret")) {
            assertThat(metadata(connection).brokers()).as("served within the session").hasSize(1);
            // Ask again every 100 ms of wall time: answered until the session's 1 s is over, then the broker closes.
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100)).until(() -> {
                try {
                    metadata(connection);
                    return false;
                } catch (IOException closed) {
                    return true;
                }
            });
        }
    }

    @Test
    void aRealProducerReauthenticatesAndGoesOnSending() {
        Map<String, Object> config = cluster.producerConfig("alice");
        cluster.createTopic("reauth", 1, 1);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
            await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200)).until(() -> {
                producer.send(new ProducerRecord<>("reauth", "k", "v")).get();
                return metric(producer.metrics(), "successful-reauthentication-total") >= 2;
            });
            assertThat(metric(producer.metrics(), "failed-reauthentication-total")).isZero();
        }
    }

    private static double metric(Map<MetricName, ? extends Metric> metrics, String name) {
        return metrics.entrySet().stream().filter(e -> e.getKey().name().equals(name) && e.getKey().group().equals("producer-metrics"))
                .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue()).sum();
    }

    private static RawConnection authenticated(String user, String password) throws IOException {
        String address = cluster.broker(1).address(Protocol.SASL_PLAINTEXT);
        RawConnection connection = RawConnection.connect(Integer.parseInt(address.substring(address.indexOf(':') + 1)));
        connection.send(handshake("PLAIN"));
        SaslAuthenticateResponse response = connection.send(plain(user, password));
        assertThat(Errors.forCode(response.data().errorCode())).isEqualTo(Errors.NONE);
        assertThat(response.data().sessionLifetimeMs()).isEqualTo(LIFETIME_MS);
        return connection;
    }

    private static MetadataResponse metadata(RawConnection connection) throws IOException {
        return connection.send(new MetadataRequest(new MetadataRequestData().setTopics(List.of()), (short) 12));
    }

    private static SaslHandshakeRequest handshake(String mechanism) {
        return new SaslHandshakeRequest.Builder(new SaslHandshakeRequestData().setMechanism(mechanism)).build((short) 1);
    }

    private static SaslAuthenticateRequest plain(String user, String password) {
        byte[] token = ("\0" + user + "\0" + password).getBytes(StandardCharsets.UTF_8);
        return new SaslAuthenticateRequest.Builder(new SaslAuthenticateRequestData().setAuthBytes(token)).build((short) 2);
    }
}
