package dev.samsa.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.samsa.KafkaCluster;
import dev.samsa.Security;
import dev.samsa.Security.Protocol;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialDeletion;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What an admin changes survives a restart on the same directory: the builder's users and ACLs seed a fresh directory
 * only (as kafka-storage format --add-scram does), so credentials created, changed or deleted at run time, and ACLs
 * deleted at run time, stay that way.
 */
class SecurityPersistenceTest {

    private static final Security SECURITY = Security.listeners(Protocol.SASL_PLAINTEXT)
            .mechanisms(Security.Mechanism.SCRAM_SHA_512)
            .user("admin", "admin-secret").user("alice", "alice-secret")
            .superUsers("admin")
            .allow("alice", Security.Operation.DESCRIBE, Security.Resource.CLUSTER, "kafka-cluster");

    @Test
    void scramCredentialsCreatedAndDeletedByAnAdminSurviveARestart(@TempDir Path dir) throws Exception {
        try (KafkaCluster first = start(dir); Admin admin = Admin.create(first.adminConfig("admin"))) {
            admin.alterUserScramCredentials(List.of(
                    new UserScramCredentialUpsertion("carol", new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), "carol-secret"),
                    new UserScramCredentialDeletion("alice", ScramMechanism.SCRAM_SHA_512))).all().get(10, TimeUnit.SECONDS);
        }
        assertThat(Files.readString(dir.resolve("metadata").resolve("scram-credentials.properties")))
                .as("salted credentials only").doesNotContain("carol-secret");
        try (KafkaCluster again = start(dir)) {
            assertThat(nodes(again.clientConfig("carol", "carol-secret"))).isEqualTo(1);
            assertThatThrownBy(() -> nodes(again.clientConfig("alice"))).hasCauseInstanceOf(SaslAuthenticationException.class);
            assertThat(nodes(again.clientConfig("admin"))).isEqualTo(1);
        }
    }

    @Test
    void anAclTheAdminDeletedStaysDeletedThoughTheBuilderDeclaresIt(@TempDir Path dir) throws Exception {
        try (KafkaCluster first = start(dir); Admin admin = Admin.create(first.adminConfig("admin"))) {
            assertThat(admin.deleteAcls(List.of(AclBindingFilter.ANY)).all().get(10, TimeUnit.SECONDS)).hasSize(1);
        }
        try (KafkaCluster again = start(dir); Admin admin = Admin.create(again.adminConfig("admin"))) {
            assertThat(admin.describeAcls(AclBindingFilter.ANY).values().get(10, TimeUnit.SECONDS)).isEmpty();
        }
    }

    private static KafkaCluster start(Path dir) {
        return KafkaCluster.builder().dataDirectory(dir).security(SECURITY).start();
    }

    private static int nodes(Map<String, Object> clientConfig) throws Exception {
        try (Admin admin = Admin.create(clientConfig)) {
            return admin.describeCluster().nodes().get(10, TimeUnit.SECONDS).size();
        }
    }
}
