package dev.samsa.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.samsa.KafkaCluster;
import dev.samsa.RawConnection;
import dev.samsa.Security;
import dev.samsa.Security.Mechanism;
import dev.samsa.Security.Protocol;
import dev.samsa.event.AuthenticationFailed;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.SaslAuthenticateRequest;
import org.apache.kafka.common.requests.SaslAuthenticateResponse;
import org.apache.kafka.common.requests.SaslHandshakeRequest;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * OAUTHBEARER with real clients: Kafka's unsecured login callback handler, tokens a test signs with its own key,
 * refused tokens (Kafka's JSON error challenge, then SASL_AUTHENTICATION_FAILED) and re-authentication.
 */
class OAuthBearerTest {

    private static final Security OAUTH = Security.listeners(Protocol.SASL_PLAINTEXT).mechanisms(Mechanism.OAUTHBEARER);

    @Test
    void recordsRoundTripOverSaslSslWithTheUnsecuredLoginCallbackHandler() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder()
                .security(Security.listeners(Protocol.SASL_SSL).mechanisms(Mechanism.OAUTHBEARER))
                .topic("tokens", 1, 1)
                .start()) {
            assertThat(cluster.clientConfig("alice")).containsEntry("sasl.mechanism", "OAUTHBEARER")
                    .containsEntry("sasl.jaas.config", "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule "
                            + "required unsecuredLoginStringClaim_sub=\"alice\";");
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(cluster.producerConfig("alice"),
                    new StringSerializer(), new StringSerializer())) {
                producer.send(new ProducerRecord<>("tokens", "k", "v")).get(30, TimeUnit.SECONDS);
            }
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerConfig(cluster, "alice", "g1"),
                    new StringDeserializer(), new StringDeserializer())) {
                consumer.subscribe(List.of("tokens"));
                await().atMost(Duration.ofSeconds(30)).until(() -> !consumer.poll(Duration.ofMillis(200)).isEmpty());
            }
            assertThat(cluster.events().events(AuthenticationFailed.class)).isEmpty();
        }
    }

    @Test
    void anExpiredTokenIsRefusedWithKafkasErrorAndIsOnTheTimeline() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().security(OAUTH).start()) {
            Map<String, Object> config = cluster.clientConfig("alice");
            config.putAll(Tokens.fixedTokenLogin(Tokens.unsecured(Tokens.claims("alice", -60, ""))));
            assertThatThrownBy(() -> describeCluster(config))
                    .hasCauseInstanceOf(SaslAuthenticationException.class)
                    .hasMessageContaining("{\"status\":\"invalid_token\"}");
            AuthenticationFailed failed = cluster.events().await(AuthenticationFailed.class, e -> true, Duration.ofSeconds(10));
            assertThat(failed.brokerId()).isEqualTo(1);
            assertThat(failed.listener()).isEqualTo("SASL_PLAINTEXT");
            assertThat(failed.mechanism()).isEqualTo("OAUTHBEARER");
            assertThat(failed.message()).isEqualTo("{\"status\":\"invalid_token\"}");
        }
    }

    @Test
    void aTokenWithoutTheRequiredScopeIsRefusedAsInsufficientScope() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().security(OAUTH.oauthBearerRequiredScope("kafka")).start()) {
            describeCluster(cluster.clientConfig("alice"));
            Map<String, Object> config = cluster.clientConfig("alice");
            config.putAll(Tokens.fixedTokenLogin(Tokens.unsecured(Tokens.claims("alice", 600, ",\"scope\":\"other\""))));
            assertThatThrownBy(() -> describeCluster(config))
                    .hasCauseInstanceOf(SaslAuthenticationException.class)
                    .hasMessageContaining("{\"status\":\"insufficient_scope\", \"scope\":\"[kafka]\"}");
        }
    }

    @Test
    void tokensSignedWithTheValidationKeyAreAcceptedAndOthersRefused() throws Exception {
        KeyPairGenerator rsa = KeyPairGenerator.getInstance("RSA");
        rsa.initialize(2048);
        KeyPair issuer = rsa.generateKeyPair();
        KeyPair stranger = rsa.generateKeyPair();
        KeyPairGenerator ec = KeyPairGenerator.getInstance("EC");
        ec.initialize(new ECGenParameterSpec("secp256r1"));
        KeyPair ecIssuer = ec.generateKeyPair();
        try (KafkaCluster cluster = KafkaCluster.builder().security(OAUTH.oauthBearerValidationKey(issuer.getPublic())).start();
             KafkaCluster ecCluster = KafkaCluster.builder().security(OAUTH.oauthBearerValidationKey(ecIssuer.getPublic())).start()) {
            assertThat(cluster.clientConfig("alice")).containsEntry("sasl.jaas.config",
                    "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;");
            String claims = Tokens.claims("alice", 600, "");
            describeCluster(withToken(cluster, Tokens.signed(claims, issuer.getPrivate())));
            describeCluster(withToken(ecCluster, Tokens.signed(claims, ecIssuer.getPrivate())));

            for (String refused : List.of(Tokens.signed(claims, stranger.getPrivate()), Tokens.unsecured(claims),
                    Tokens.signed(Tokens.claims("alice", -60, ""), issuer.getPrivate()))) {
                assertThatThrownBy(() -> describeCluster(withToken(cluster, refused)))
                        .hasCauseInstanceOf(SaslAuthenticationException.class)
                        .hasMessageContaining("{\"status\":\"invalid_token\"}");
            }
            // 30 s of clock skew, as Kafka's sasl.oauthbearer.clock.skew.seconds default: valid from 20 s "in the future"
            long now = System.currentTimeMillis() / 1000;
            describeCluster(withToken(cluster, Tokens.signed("{\"sub\":\"alice\",\"iat\":" + now + ",\"nbf\":" + (now + 20)
                    + ",\"exp\":" + (now + 600) + "}", issuer.getPrivate())));
            String notYet = Tokens.signed("{\"sub\":\"alice\",\"iat\":" + now + ",\"nbf\":" + (now + 120) + ",\"exp\":"
                    + (now + 600) + "}", issuer.getPrivate());
            assertThatThrownBy(() -> describeCluster(withToken(cluster, notYet)))
                    .hasCauseInstanceOf(SaslAuthenticationException.class);
        }
    }

    @Test
    void theSessionLifetimeIsTheTokensRemainingLifeWhenShorterThanMaxReauth() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().security(OAUTH)
                .brokerConfig("connections.max.reauth.ms", "3600000").start();
             RawConnection connection = RawConnection.connect(cluster.broker(1))) {
            connection.send(new SaslHandshakeRequest.Builder(new SaslHandshakeRequestData().setMechanism("OAUTHBEARER")).build((short) 1));
            String token = Tokens.unsecured(Tokens.claims("alice", 60, ""));
            SaslAuthenticateResponse response = connection.send(new SaslAuthenticateRequest.Builder(new SaslAuthenticateRequestData()
                    .setAuthBytes(("n,,\u0001auth=Bearer " + token + "\u0001\u0001").getBytes(StandardCharsets.UTF_8))).build((short) 2));
            assertThat(Errors.forCode(response.data().errorCode())).isEqualTo(Errors.NONE);
            assertThat(response.data().sessionLifetimeMs()).isBetween(55_000L, 60_000L);
        }
    }

    @Test
    void aConsumerStaysConnectedAcrossReauthentications() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().security(OAUTH)
                .brokerConfig("connections.max.reauth.ms", "1000")
                .topic("long-running", 1, 1)
                .start();
             KafkaProducer<String, String> producer = new KafkaProducer<>(cluster.producerConfig("alice"),
                     new StringSerializer(), new StringSerializer());
             KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerConfig(cluster, "alice", "g1"),
                     new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of("long-running"));
            int[] sent = {0};
            // Produce and consume until each connection has re-authenticated once: all of them are open by then.
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() ->
                    roundTrip(producer, consumer, sent) && metric(consumer.metrics(), "successful-reauthentication-total") >= 2);
            double closed = metric(consumer.metrics(), "connection-close-total");
            double reauthentications = metric(consumer.metrics(), "successful-reauthentication-total");
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() ->
                    roundTrip(producer, consumer, sent)
                            && metric(consumer.metrics(), "successful-reauthentication-total") >= reauthentications + 3);
            assertThat(metric(consumer.metrics(), "failed-reauthentication-total")).isZero();
            // A re-authentication that failed would close its connection: none was. (Counting created connections was
            // flaky with kafka-clients 4.4, which may open one more to another node meanwhile.)
            assertThat(metric(consumer.metrics(), "connection-close-total"))
                    .as("the same connections, re-authenticated, none closed").isEqualTo(closed);
        }
    }

    /** One record sent; whether the consumer received any. */
    private static boolean roundTrip(KafkaProducer<String, String> producer, KafkaConsumer<String, String> consumer,
                                     int[] sent) throws Exception {
        producer.send(new ProducerRecord<>("long-running", "k", Integer.toString(sent[0]++))).get();
        return !consumer.poll(Duration.ofMillis(100)).isEmpty();
    }

    private static Map<String, Object> withToken(KafkaCluster cluster, String token) {
        Map<String, Object> config = cluster.clientConfig("alice");
        config.putAll(Tokens.fixedTokenLogin(token));
        return config;
    }

    private static Map<String, Object> consumerConfig(KafkaCluster cluster, String user, String group) {
        Map<String, Object> config = new HashMap<>(cluster.consumerConfig(user, group));
        config.put("auto.offset.reset", "earliest");
        return config;
    }

    private static double metric(Map<MetricName, ? extends Metric> metrics, String name) {
        return metrics.entrySet().stream().filter(e -> e.getKey().name().equals(name))
                .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue()).sum();
    }

    private static void describeCluster(Map<String, Object> config) throws Exception {
        Map<String, Object> admin = new HashMap<>(config);
        admin.put("default.api.timeout.ms", 10_000);
        admin.put("request.timeout.ms", 5_000);
        try (Admin client = Admin.create(admin)) {
            client.describeCluster().clusterId().get(15, TimeUnit.SECONDS);
        }
    }
}
