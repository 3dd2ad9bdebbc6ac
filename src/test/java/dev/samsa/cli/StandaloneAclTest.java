package dev.samsa.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.samsa.KafkaCluster;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.Test;

/** The launcher's --acl and --super-user flags, as the cluster they start answers real clients. */
class StandaloneAclTest {

    @Test
    void aclsWithoutAListenerGuardThePlaintextListener() throws Exception {
        try (KafkaCluster cluster = Standalone.parse(new String[] {"--topic", "visible:1:1", "--topic", "hidden:1:1",
                "--acl", "User:ANONYMOUS ALLOW DESCRIBE TOPIC visible"}).start();
             Admin admin = Admin.create(Map.of("bootstrap.servers", cluster.bootstrapServers()))) {
            assertThat(admin.listTopics().names().get(10, TimeUnit.SECONDS)).containsExactly("visible");
        }
    }

    @Test
    void aSuperUserCreatesTopicsThatAnotherUserMayNot() throws Exception {
        try (KafkaCluster cluster = Standalone.parse(new String[] {"--listener", "SASL_PLAINTEXT", "--user", "alice:a-secret",
                "--user", "admin:admin-secret", "--super-user", "admin", "--acl", "User:alice ALLOW DESCRIBE TOPIC *"}).start();
             Admin alice = Admin.create(cluster.adminConfig("alice"));
             Admin admin = Admin.create(cluster.adminConfig("admin"))) {
            assertThatThrownBy(() -> alice.createTopics(List.of(new NewTopic("orders", 1, (short) 1))).all().get(10, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(TopicAuthorizationException.class);
            admin.createTopics(List.of(new NewTopic("orders", 1, (short) 1))).all().get(10, TimeUnit.SECONDS);
            assertThat(alice.listTopics().names().get(10, TimeUnit.SECONDS)).containsExactly("orders");
        }
    }

    @Test
    void aBadAclNamesWhatIsWrong() {
        assertThatThrownBy(() -> Standalone.parse(new String[] {"--acl", "User:alice ALLOW EAT TOPIC orders"}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("got \"EAT\" in ACL \"User:alice ALLOW EAT TOPIC orders\"");
    }
}
