package dev.samsa.security;

import static org.awaitility.Awaitility.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.samsa.KafkaCluster;
import dev.samsa.Security;
import dev.samsa.Security.Mechanism;
import dev.samsa.Security.Protocol;
import dev.samsa.event.AuthenticationFailed;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialAlteration;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.admin.UserScramCredentialsDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.errors.ResourceNotFoundException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.junit.jupiter.api.Test;

/** Real clients against secured listeners, configured only from the cluster's client configs. */
class SecuredClusterTest {

    @Test
    void recordsRoundTripOverSaslSslWithScramSha512() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder()
                .security(Security.listeners(Protocol.SASL_SSL).user("alice", "alice-secret"))
                .start()) {
            assertThat(cluster.clientConfig("alice")).containsEntry("security.protocol", "SASL_SSL")
                    .containsEntry("sasl.mechanism", "SCRAM-SHA-512").containsEntry("ssl.truststore.type", "PEM");
            assertRoundTrip(cluster, cluster.producerConfig("alice"), cluster.consumerConfig("alice", "g1"), "scram");
        }
    }

    @Test
    void recordsRoundTripOverSaslPlaintextWithPlain() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder()
                .security(Security.listeners(Protocol.SASL_PLAINTEXT).mechanisms(Mechanism.PLAIN).user("bob", "b\"ob's"))
                .start()) {
            assertThat(cluster.clientConfig("bob")).containsEntry("sasl.mechanism", "PLAIN");
            assertRoundTrip(cluster, cluster.producerConfig("bob"), cluster.consumerConfig("bob", "g1"), "plain");
        }
    }

    @Test
    void recordsRoundTripOverSslWithClientCertificates() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder()
                .security(Security.listeners(Protocol.SSL).mutualTls().principalMappingRules("RULE:^CN=(.*)$/$1/,DEFAULT"))
                .start()) {
            assertThat(cluster.clientConfig("carol")).containsEntry("ssl.keystore.type", "PEM");
            assertRoundTrip(cluster, cluster.producerConfig("carol"), cluster.consumerConfig("carol", "g1"), "mtls");
        }
    }

    @Test
    void aWrongPasswordIsASaslAuthenticationFailureWithKafkasMessage() {
        try (KafkaCluster cluster = KafkaCluster.builder()
                .security(Security.listeners(Protocol.SASL_SSL, Protocol.SASL_PLAINTEXT).mechanisms(Mechanism.SCRAM_SHA_256, Mechanism.PLAIN)
                        .user("alice", "alice-secret"))
                .start()) {
            assertThatThrownBy(() -> describeCluster(cluster.clientConfig("alice", "wrong")))
                    .hasCauseInstanceOf(SaslAuthenticationException.class)
                    .hasMessageContaining("Authentication failed during authentication due to invalid credentials with "
                            + "SASL mechanism SCRAM-SHA-256");
            AuthenticationFailed failed = cluster.events().await(AuthenticationFailed.class, e -> true, Duration.ofSeconds(10));
            assertThat(failed).isEqualTo(new AuthenticationFailed(1, "SASL_SSL", "SCRAM-SHA-256", "User:alice",
                    "Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-256"));
            Map<String, Object> plain = cluster.clientConfig(Protocol.SASL_PLAINTEXT, "alice");
            plain.put("sasl.mechanism", "PLAIN");
            plain.put("sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required "
                    + "username=\"alice\" password=\"wrong\";");
            assertThatThrownBy(() -> describeCluster(plain))
                    .hasCauseInstanceOf(SaslAuthenticationException.class)
                    .hasMessageContaining("Authentication failed: Invalid username or password");
        }
    }

    @Test
    void aCertificateFromAnotherAuthorityIsAnSslAuthenticationFailure() {
        Security mtls = Security.listeners(Protocol.SSL).mutualTls();
        try (KafkaCluster cluster = KafkaCluster.builder().security(mtls).start();
             KafkaCluster other = KafkaCluster.builder().security(mtls).start()) {
            Map<String, Object> strangerCertificate = cluster.clientConfig("mallory");
            Map<String, Object> otherConfig = other.clientConfig("mallory");
            strangerCertificate.put("ssl.keystore.certificate.chain", otherConfig.get("ssl.keystore.certificate.chain"));
            strangerCertificate.put("ssl.keystore.key", otherConfig.get("ssl.keystore.key"));
            assertThatThrownBy(() -> describeCluster(strangerCertificate)).hasCauseInstanceOf(SslAuthenticationException.class);
            assertThat(cluster.events().await(AuthenticationFailed.class, e -> true, Duration.ofSeconds(10)).mechanism())
                    .isEqualTo("TLS");

            Map<String, Object> strangerBroker = cluster.clientConfig("mallory");
            strangerBroker.put("ssl.truststore.certificates", otherConfig.get("ssl.truststore.certificates"));
            assertThatThrownBy(() -> describeCluster(strangerBroker)).hasCauseInstanceOf(SslAuthenticationException.class);
        }
    }

    @Test
    void aUserCreatedByAnAdminClientLogsIn() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder()
                .security(Security.listeners(Protocol.SASL_SSL, Protocol.PLAINTEXT).user("admin", "admin-secret"))
                .start();
             Admin admin = Admin.create(cluster.adminConfig("admin"))) {
            List<UserScramCredentialAlteration> alterations = List.of(
                    new UserScramCredentialUpsertion("dave", new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 8192), "dave-secret"),
                    new UserScramCredentialUpsertion("erin", new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 100), "too-few"));
            var results = admin.alterUserScramCredentials(alterations).values();
            results.get("dave").get(10, TimeUnit.SECONDS);
            assertThatThrownBy(() -> results.get("erin").get(10, TimeUnit.SECONDS)).hasMessageContaining("Too few iterations");

            Map<String, UserScramCredentialsDescription> described = admin.describeUserScramCredentials().all().get(10, TimeUnit.SECONDS);
            assertThat(described.keySet()).containsExactlyInAnyOrder("admin", "dave");
            assertThat(described.get("dave").credentialInfos())
                    .containsExactly(new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 8192));
            assertThatThrownBy(() -> admin.describeUserScramCredentials(List.of("nobody")).description("nobody").get(10, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(ResourceNotFoundException.class);

            assertThat(describeCluster(cluster.clientConfig("dave", "dave-secret"))).hasSize(1);
        }
    }

    @Test
    void aPlaintextListenerBesideASaslSslOneAdvertisesItsOwnPorts() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(2)
                .security(Security.listeners(Protocol.SASL_SSL, Protocol.PLAINTEXT).user("alice", "alice-secret"))
                .start()) {
            assertThat(cluster.adminConfig()).containsEntry("bootstrap.servers", cluster.bootstrapServers(Protocol.PLAINTEXT))
                    .doesNotContainKey("security.protocol");
            assertThat(addresses(describeCluster(cluster.adminConfig())))
                    .containsExactlyInAnyOrder(cluster.broker(1).address(Protocol.PLAINTEXT), cluster.broker(2).address(Protocol.PLAINTEXT))
                    .doesNotContain(cluster.broker(1).address(Protocol.SASL_SSL));
            assertThat(addresses(describeCluster(cluster.adminConfig("alice"))))
                    .containsExactlyInAnyOrder(cluster.broker(1).address(), cluster.broker(2).address());
            assertRoundTrip(cluster, cluster.producerConfig("alice"), cluster.consumerConfig(null, "plain-group"), "mixed");
        }
    }

    @Test
    void aRestartedBrokerListensAgainOnEveryListenerWithTheSameCertificate() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder()
                .security(Security.listeners(Protocol.SASL_SSL, Protocol.PLAINTEXT).user("alice", "alice-secret"))
                .start()) {
            Map<String, Object> config = cluster.clientConfig("alice");
            String saslAddress = cluster.broker(1).address(Protocol.SASL_SSL);
            String plainAddress = cluster.broker(1).address(Protocol.PLAINTEXT);
            cluster.broker(1).crash();
            cluster.broker(1).restart();
            assertThat(cluster.broker(1).address(Protocol.SASL_SSL)).isEqualTo(saslAddress);
            assertThat(cluster.broker(1).address(Protocol.PLAINTEXT)).isEqualTo(plainAddress);
            // the config taken before the restart still holds: same ports, same CA, same broker certificate chain
            assertThat(addresses(describeCluster(config))).containsExactly(saslAddress);
            assertThat(addresses(describeCluster(cluster.adminConfig()))).containsExactly(plainAddress);
        }
    }

    private static List<String> addresses(List<Node> nodes) {
        return nodes.stream().map(n -> n.host() + ":" + n.port()).toList();
    }

    private static List<Node> describeCluster(Map<String, Object> config) throws Exception {
        Map<String, Object> adminConfig = new HashMap<>(config);
        adminConfig.put("request.timeout.ms", "10000");
        adminConfig.put("default.api.timeout.ms", "10000");
        try (Admin admin = Admin.create(adminConfig)) {
            return new ArrayList<>(admin.describeCluster().nodes().get(15, TimeUnit.SECONDS));
        }
    }

    private static void assertRoundTrip(KafkaCluster cluster, Map<String, Object> producerConfig,
                                         Map<String, Object> consumerConfig, String topic) throws Exception {
        cluster.createTopic(topic, 2, 1);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerConfig)) {
            for (int i = 0; i < 10; i++) {
                producer.send(new ProducerRecord<>(topic, "k" + i, "v" + i)).get(15, TimeUnit.SECONDS);
            }
        }
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerConfig)) {
            consumer.subscribe(List.of(topic));
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(1)).until(() -> {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    values.add(r.value());
                }
                return values.size() >= 10;
            });
        }
        assertThat(values).as("values read back over %s", consumerConfig.get("security.protocol"))
                .containsExactlyInAnyOrder("v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9");
    }
}
