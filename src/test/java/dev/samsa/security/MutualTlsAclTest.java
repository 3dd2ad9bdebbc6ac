package dev.samsa.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.samsa.KafkaCluster;
import dev.samsa.Security;
import dev.samsa.Security.Protocol;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Mutual TLS on both TLS listeners, as ssl.client.auth=required is in Kafka, and whose principal the ACLs see: on SSL
 * the certificate's CN through ssl.principal.mapping.rules (here CN=carol is User:tls-carol), on SASL_SSL the SASL user.
 */
class MutualTlsAclTest {

    private static KafkaCluster cluster;

    @BeforeAll
    static void start() {
        cluster = KafkaCluster.builder().topic("orders", 1, 1)
                .security(Security.listeners(Protocol.SSL, Protocol.SASL_SSL).user("alice", "alice-secret")
                        .mutualTls().principalMappingRules("RULE:^CN=(.*)$/tls-$1/,DEFAULT")
                        .acl("User:tls-carol ALLOW WRITE TOPIC orders")
                        .acl("User:alice ALLOW WRITE TOPIC orders"))
                .start();
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    @Test
    void onTheSslListenerTheMappedCertificateNameIsThePrincipal() throws Exception {
        send(cluster.clientConfig(Protocol.SSL, "carol"));
        assertThatThrownBy(() -> send(cluster.clientConfig(Protocol.SSL, "dave")))
                .hasCauseInstanceOf(TopicAuthorizationException.class);
    }

    @Test
    void onTheSaslSslListenerAClientCertificateIsRequiredAndTheSaslUserIsThePrincipal() throws Exception {
        Map<String, Object> alice = cluster.clientConfig(Protocol.SASL_SSL, "alice");
        assertThat(alice).containsKey("ssl.keystore.key");
        send(alice);

        Map<String, Object> withoutCertificate = new HashMap<>(alice);
        withoutCertificate.keySet().removeIf(k -> k.startsWith("ssl.keystore") || k.equals("ssl.key.password"));
        try (Admin admin = Admin.create(withoutCertificate)) {
            assertThatThrownBy(() -> admin.describeCluster().nodes().get(15, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(SslAuthenticationException.class);
        }
    }

    private static void send(Map<String, Object> clientConfig) throws Exception {
        Map<String, Object> config = new HashMap<>(clientConfig);
        config.put("key.serializer", StringSerializer.class);
        config.put("value.serializer", StringSerializer.class);
        config.put("max.block.ms", 10_000);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
            producer.send(new ProducerRecord<>("orders", "v")).get(15, TimeUnit.SECONDS);
        }
    }
}
