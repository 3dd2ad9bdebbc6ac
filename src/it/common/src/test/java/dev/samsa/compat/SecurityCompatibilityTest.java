package dev.samsa.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import dev.samsa.KafkaCluster;
import dev.samsa.Security.Mechanism;
import dev.samsa.Security.Protocol;
import dev.samsa.junit.EmbeddedKafkaCluster;
import dev.samsa.junit.Topic;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A secured cluster as the project's own kafka-clients sees it: TLS with the generated CA handed over as PEM, SCRAM
 * over SASL_SSL, and ACLs from the annotation; the clients are configured only from the cluster's client configs.
 */
@EmbeddedKafkaCluster(listeners = Protocol.SASL_SSL, saslMechanisms = Mechanism.SCRAM_SHA_512,
        users = {"alice:alice-secret", "admin:admin-secret"}, superUsers = "admin",
        acls = {"User:alice ALLOW WRITE TOPIC orders", "User:alice ALLOW READ TOPIC orders", "User:alice ALLOW READ GROUP billing"},
        topics = {@Topic(name = "orders"), @Topic(name = "payments")})
class SecurityCompatibilityTest {

    /**
     * kafka-clients before 3.9 log in with Subject.getSubject, which Java 23 and later refuse (JEP 486; 3.9 added
     * SecurityManagerCompatibility): such a client cannot use SASL against any broker on those JVMs, so there is
     * nothing of Samsa's to check there.
     */
    @BeforeEach
    void saslNeedsAClientThatRunsOnThisJvm() throws Exception {
        String clientsVersion = clientsVersion();
        String[] parts = clientsVersion.split("\\.");
        int clients = Integer.parseInt(parts[0]) * 100 + Integer.parseInt(parts[1]);
        assumeFalse(clients < 309 && Runtime.version().feature() >= 23,
                "kafka-clients " + clientsVersion + " cannot log in over SASL on Java " + Runtime.version().feature());
    }

    /** The project's kafka-clients version, from the file every kafka-clients jar carries (Samsa's jar leaves it out). */
    private static String clientsVersion() throws Exception {
        Properties p = new Properties();
        try (InputStream in = KafkaProducer.class.getClassLoader().getResourceAsStream("kafka/kafka-version.properties")) {
            p.load(in);
        }
        return p.getProperty("version");
    }

    @Test
    void aliceRoundTripsWhereHerAclsAllowAndIsRefusedElsewhere(KafkaCluster cluster) throws Exception {
        // The project's own login module, not the copy inside Samsa's jar (which the jar's shading renames).
        assertThat((String) cluster.clientConfig("alice").get("sasl.jaas.config"))
                .startsWith("org.apache.kafka.common.security.scram.ScramLoginModule required");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(blockingBriefly(cluster.producerConfig("alice")))) {
            producer.send(new ProducerRecord<>("orders", "k", "placed")).get(15, TimeUnit.SECONDS);
            assertThatThrownBy(() -> producer.send(new ProducerRecord<>("payments", "k", "paid")).get(15, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(TopicAuthorizationException.class);
        }
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cluster.consumerConfig("alice", "billing"))) {
            consumer.subscribe(Collections.singletonList("orders"));
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    values.add(r.value());
                }
                return !values.isEmpty();
            });
        }
        assertThat(values).containsExactly("placed");
    }

    @Test
    void aWrongPasswordIsRefusedAsKafkaRefusesIt(KafkaCluster cluster) {
        Map<String, Object> config = blockingBriefly(cluster.producerConfig("alice"));
        config.put("sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required"
                + " username=\"alice\" password=\"wrong\";");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
            assertThatThrownBy(() -> producer.send(new ProducerRecord<>("orders", "v")).get(15, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(SaslAuthenticationException.class);
        }
    }

    private static Map<String, Object> blockingBriefly(Map<String, Object> config) {
        Map<String, Object> c = new HashMap<>(config);
        c.put("max.block.ms", 10_000);
        return c;
    }
}
