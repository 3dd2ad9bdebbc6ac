package dev.samsa.junit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.samsa.KafkaCluster;
import dev.samsa.Security.Protocol;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** ACLs and super users from the annotation, checked by real clients. */
class AclAnnotationTest {

    @Nested
    @EmbeddedKafkaCluster(listeners = Protocol.SASL_PLAINTEXT, users = {"alice:alice-secret", "admin:admin-secret"},
            superUsers = "admin", acls = {"User:alice ALLOW WRITE TOPIC PREFIXED orders-", "User:alice DENY WRITE TOPIC orders-secret"},
            topics = {@Topic(name = "orders-eu"), @Topic(name = "orders-secret"), @Topic(name = "payments")})
    class OverSasl {

        @Test
        void aliceWritesWhereTheAclsAllowAndTheSuperUserEverywhere(KafkaCluster cluster) throws Exception {
            try (KafkaProducer<String, String> alice = new KafkaProducer<>(producer(cluster.producerConfig("alice")))) {
                alice.send(new ProducerRecord<>("orders-eu", "v")).get(15, TimeUnit.SECONDS);
                assertThatThrownBy(() -> alice.send(new ProducerRecord<>("orders-secret", "v")).get(15, TimeUnit.SECONDS))
                        .hasCauseInstanceOf(TopicAuthorizationException.class);
                assertThatThrownBy(() -> alice.send(new ProducerRecord<>("payments", "v")).get(15, TimeUnit.SECONDS))
                        .hasCauseInstanceOf(TopicAuthorizationException.class);
            }
            try (KafkaProducer<String, String> admin = new KafkaProducer<>(producer(cluster.producerConfig("admin")))) {
                admin.send(new ProducerRecord<>("payments", "v")).get(15, TimeUnit.SECONDS);
            }
        }
    }

    @Nested
    @EmbeddedKafkaCluster(acls = "User:ANONYMOUS ALLOW DESCRIBE TOPIC visible", topics = {@Topic(name = "visible"), @Topic(name = "hidden")})
    class OnThePlaintextListener {

        @Test
        void anonymousClientsSeeOnlyWhatTheAclsShow(@BootstrapServers String bootstrap) throws Exception {
            try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
                assertThat(admin.listTopics().names().get(10, TimeUnit.SECONDS)).containsExactly("visible");
            }
        }
    }

    private static Map<String, Object> producer(Map<String, Object> config) {
        Map<String, Object> c = new java.util.HashMap<>(config);
        c.put("max.block.ms", 10_000);
        return c;
    }
}
