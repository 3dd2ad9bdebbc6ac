package dev.samsa.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.samsa.KafkaCluster;
import dev.samsa.RawConnection;
import dev.samsa.Security;
import dev.samsa.Security.Mechanism;
import dev.samsa.Security.Protocol;
import dev.samsa.event.CertificateRotated;
import dev.samsa.event.SaslSessionsExpired;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.apache.kafka.clients.admin.Admin;
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
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/** The security faults with real clients: SASL sessions expired early, and a broker certificate rotated. */
class SecurityFaultsTest {

    @Test
    void anExpiredSessionClosesTheConnectionAtItsNextRequest() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder()
                .security(Security.listeners(Protocol.SASL_PLAINTEXT).mechanisms(Mechanism.PLAIN).user("alice", "secret"))
                .start();
             RawConnection connection = RawConnection.connect(cluster.broker(1))) {
            connection.send(new SaslHandshakeRequest.Builder(new SaslHandshakeRequestData().setMechanism("PLAIN")).build((short) 1));
            SaslAuthenticateResponse authenticated = connection.send(new SaslAuthenticateRequest.Builder(
                    new SaslAuthenticateRequestData().setAuthBytes("\u0000alice\u0000secret".getBytes(StandardCharsets.UTF_8)))
                    .build((short) 2));
            assertThat(Errors.forCode(authenticated.data().errorCode())).isEqualTo(Errors.NONE);
            assertThat(metadata(connection).brokers()).as("served before the fault").hasSize(1);

            cluster.faults().expireSaslSessions(1);

            assertThatThrownBy(() -> metadata(connection)).as("closed unanswered, as Kafka closes an expired session")
                    .isInstanceOf(IOException.class);
            assertThat(cluster.events().events(SaslSessionsExpired.class)).containsExactly(new SaslSessionsExpired(1));
        }
    }

    @Test
    void aProducerWhoseSessionExpiredReconnectsAndGoesOnSending() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder()
                .security(Security.listeners(Protocol.SASL_PLAINTEXT).user("alice", "secret"))
                .topic("orders", 1, 1)
                .start();
             KafkaProducer<String, String> producer = new KafkaProducer<>(cluster.producerConfig("alice"),
                     new StringSerializer(), new StringSerializer())) {
            producer.send(new ProducerRecord<>("orders", "k", "before")).get(30, TimeUnit.SECONDS);
            double connections = metric(producer.metrics(), "connection-creation-total");

            cluster.faults().expireSaslSessions(1);

            // The first send after the fault meets the closed connection and is retried on a new, re-authenticated one.
            producer.send(new ProducerRecord<>("orders", "k", "after")).get(30, TimeUnit.SECONDS);
            assertThat(metric(producer.metrics(), "connection-creation-total")).isGreaterThan(connections);
            assertThat(cluster.partition("orders", 0).highWatermark()).isEqualTo(2);
        }
    }

    @Test
    void aRotatedCertificateServesNewConnectionsWhileOpenOnesGoOn() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder()
                .security(Security.listeners(Protocol.SSL))
                .topic("orders", 1, 1)
                .start();
             Admin admin = Admin.create(cluster.adminConfig())) {
            admin.describeCluster().clusterId().get(30, TimeUnit.SECONDS);
            double adminConnections = metric(admin.metrics(), "connection-creation-total");
            String trusted = (String) cluster.adminConfig().get("ssl.truststore.certificates");
            String address = cluster.broker(1).address(Protocol.SSL);
            X509Certificate before = servedCertificate(address, trusted);

            cluster.faults().rotateCertificate(1);

            X509Certificate after = servedCertificate(address, trusted);
            assertThat(after.getSerialNumber()).isNotEqualTo(before.getSerialNumber());
            assertThat(after.getPublicKey()).isNotEqualTo(before.getPublicKey());
            assertThat(after.getIssuerX500Principal()).isEqualTo(before.getIssuerX500Principal());
            admin.describeTopics(List.of("orders")).allTopicNames().get(30, TimeUnit.SECONDS);
            assertThat(metric(admin.metrics(), "connection-creation-total")).as("the open connection went on")
                    .isEqualTo(adminConnections);
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(cluster.producerConfig(),
                    new StringSerializer(), new StringSerializer())) {
                producer.send(new ProducerRecord<>("orders", "k", "v")).get(30, TimeUnit.SECONDS);
            }
            assertThat(cluster.events().events(CertificateRotated.class)).containsExactly(new CertificateRotated(1));
        }
    }

    /** The certificate a new TLS connection to {@code address} is shown, checked against {@code trustedPem}. */
    static X509Certificate servedCertificate(String address, String trustedPem) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("ca", CertificateFactory.getInstance("X.509")
                .generateCertificate(new ByteArrayInputStream(trustedPem.getBytes(StandardCharsets.US_ASCII))));
        TrustManagerFactory trustManagers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trustManagers.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, trustManagers.getTrustManagers(), null);
        String host = address.substring(0, address.indexOf(':'));
        int port = Integer.parseInt(address.substring(address.indexOf(':') + 1));
        try (SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket(host, port)) {
            socket.startHandshake();
            return (X509Certificate) socket.getSession().getPeerCertificates()[0];
        }
    }

    private static MetadataResponse metadata(RawConnection connection) throws IOException {
        return connection.send(new MetadataRequest(new MetadataRequestData().setTopics(List.of()), (short) 12));
    }

    private static double metric(Map<MetricName, ? extends Metric> metrics, String name) {
        return metrics.entrySet().stream().filter(e -> e.getKey().name().equals(name))
                .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue()).sum();
    }
}
