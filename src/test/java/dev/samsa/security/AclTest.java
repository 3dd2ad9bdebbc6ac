package dev.samsa.security;

import static org.awaitility.Awaitility.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.samsa.KafkaCluster;
import dev.samsa.Security;
import dev.samsa.Security.Protocol;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AccessControlEntryFilter;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.SecurityDisabledException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourcePatternFilter;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ACLs as Kafka's StandardAuthorizer applies them, seen by real clients over SASL. One cluster for the class: alice
 * may READ topic orders, topics prefixed orders-, and group billing; admin is a super user; each test uses its own
 * topics and groups.
 */
class AclTest {

    private static KafkaCluster cluster;

    @BeforeAll
    static void start() {
        cluster = KafkaCluster.builder()
                .topic("orders", 1, 1).topic("orders-eu", 1, 1).topic("orders-secret", 1, 1).topic("payments", 1, 1)
                .security(Security.listeners(Protocol.SASL_PLAINTEXT)
                        .user("admin", "admin-secret").user("alice", "alice-secret")
                        .superUsers("admin")
                        .allow("alice", Security.Operation.READ, Security.Resource.TOPIC, "orders")
                        .allowPrefixed("alice", Security.Operation.READ, Security.Resource.TOPIC, "orders-")
                        .allow("alice", Security.Operation.READ, Security.Resource.GROUP, "billing"))
                .start();
        for (String topic : List.of("orders", "orders-eu", "orders-secret", "payments")) {
            produceAsAdmin(topic, topic + "-record");
        }
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    @Test
    void aUserWithReadOnTheTopicAndTheGroupConsumes() {
        assertThat(consume("alice", "billing", "orders")).containsExactly("orders-record");
    }

    @Test
    void withoutTheGroupAclTheConsumerGetsGroupAuthorizationException() {
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cluster.consumerConfig("alice", "shipping"))) {
            consumer.subscribe(List.of("orders"));
            assertThatThrownBy(() -> consumer.poll(Duration.ofSeconds(10))).isInstanceOf(GroupAuthorizationException.class)
                    .hasMessageContaining("shipping");
        }
    }

    @Test
    void aPrefixedAclCoversTheTopicsItPrefixes() {
        assertThat(consume("alice", "billing", "orders-eu")).containsExactly("orders-eu-record");
    }

    @Test
    void aTopicWithoutAnAclIsRefused() {
        assertThatThrownBy(() -> consume("alice", "billing", "payments")).isInstanceOf(TopicAuthorizationException.class);
    }

    @Test
    void denyBeatsAllow() throws Exception {
        try (Admin admin = Admin.create(cluster.adminConfig("admin"))) {
            admin.createAcls(List.of(new AclBinding(new ResourcePattern(ResourceType.TOPIC, "orders-secret", PatternType.LITERAL),
                    new AccessControlEntry("User:alice", "*", AclOperation.READ, AclPermissionType.DENY)))).all().get(10, TimeUnit.SECONDS);
        }
        assertThatThrownBy(() -> consume("alice", "billing", "orders-secret")).isInstanceOf(TopicAuthorizationException.class);
    }

    @Test
    void metadataHidesTopicsTheUserMayNotDescribe() throws Exception {
        try (Admin alice = Admin.create(cluster.adminConfig("alice"))) {
            assertThat(alice.listTopics().names().get(10, TimeUnit.SECONDS)).contains("orders", "orders-eu")
                    .doesNotContain("payments");
            assertThatThrownBy(() -> alice.describeTopics(List.of("payments")).allTopicNames().get(10, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(TopicAuthorizationException.class);
        }
    }

    @Test
    void offsetFetchLeavesOutTopicsTheUserMayNotDescribe() throws Exception {
        TopicPartition payments = new TopicPartition("payments", 0);
        TopicPartition orders = new TopicPartition("orders", 0);
        try (Admin admin = Admin.create(cluster.adminConfig("admin"))) {
            admin.alterConsumerGroupOffsets("ledger-readers", Map.of(payments, new org.apache.kafka.clients.consumer.OffsetAndMetadata(1),
                    orders, new org.apache.kafka.clients.consumer.OffsetAndMetadata(1))).all().get(10, TimeUnit.SECONDS);
            admin.createAcls(List.of(allow("alice", ResourceType.GROUP, "ledger-readers", PatternType.LITERAL, AclOperation.DESCRIBE)))
                    .all().get(10, TimeUnit.SECONDS);
        }
        try (Admin alice = Admin.create(cluster.adminConfig("alice"))) {
            assertThat(alice.listConsumerGroupOffsets("ledger-readers").partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS))
                    .containsOnlyKeys(orders);
        }
    }

    @Test
    void aProducerWithoutWriteIsRefused() {
        Map<String, Object> config = cluster.producerConfig("alice");
        config.put("enable.idempotence", "false");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
            assertThatThrownBy(() -> producer.send(new ProducerRecord<>("orders", "k", "v")).get(10, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(TopicAuthorizationException.class);
        }
    }

    @Test
    void anIdempotentProducerWithoutWriteOnAnyTopicIsRefusedItsProducerId() {
        // As Kafka: InitProducerId needs IDEMPOTENT_WRITE on the cluster or WRITE on some topic.
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(cluster.producerConfig("alice"))) {
            assertThatThrownBy(() -> producer.send(new ProducerRecord<>("orders", "k", "v")).get(10, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(ClusterAuthorizationException.class);
        }
    }

    @Test
    void aTransactionalProducerWithoutTheTransactionalIdAclIsRefused() {
        Map<String, Object> config = cluster.producerConfig("alice");
        config.put("transactional.id", "alice-txn");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
            assertThatThrownBy(producer::initTransactions).isInstanceOf(TransactionalIdAuthorizationException.class);
        }
    }

    @Test
    void aTransactionalProducerWithWriteOnItsIdAndTopicCommits() throws Exception {
        try (Admin admin = Admin.create(cluster.adminConfig("admin"))) {
            admin.createTopics(List.of(new org.apache.kafka.clients.admin.NewTopic("ledger", 1, (short) 1))).all().get(10, TimeUnit.SECONDS);
            admin.createAcls(List.of(
                    allow("alice", ResourceType.TRANSACTIONAL_ID, "ledger-txn", PatternType.LITERAL, AclOperation.WRITE),
                    allow("alice", ResourceType.TOPIC, "ledger", PatternType.LITERAL, AclOperation.WRITE))).all().get(10, TimeUnit.SECONDS);
        }
        Map<String, Object> config = cluster.producerConfig("alice");
        config.put("transactional.id", "ledger-txn");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>("ledger", "k", "entry")).get(10, TimeUnit.SECONDS);
            producer.commitTransaction();
        }
        assertThat(consume("admin", "auditors", "ledger")).containsExactly("entry");
    }

    @Test
    void adminCreatesDescribesAndDeletesAclsAsKafkaDoes() throws Exception {
        AclBinding bobWrites = allow("bob", ResourceType.TOPIC, "audit-", PatternType.PREFIXED, AclOperation.WRITE);
        AclBindingFilter bobs = new AclBindingFilter(ResourcePatternFilter.ANY,
                new AccessControlEntryFilter("User:bob", null, AclOperation.ANY, AclPermissionType.ANY));
        try (Admin admin = Admin.create(cluster.adminConfig("admin"))) {
            admin.createAcls(List.of(bobWrites)).all().get(10, TimeUnit.SECONDS);
            assertThat(admin.describeAcls(bobs).values().get(10, TimeUnit.SECONDS)).containsExactly(bobWrites);
            AclBindingFilter byPrefixMatch = new AclBindingFilter(
                    new ResourcePatternFilter(ResourceType.TOPIC, "audit-log", PatternType.MATCH), AccessControlEntryFilter.ANY);
            assertThat(admin.describeAcls(byPrefixMatch).values().get(10, TimeUnit.SECONDS)).containsExactly(bobWrites);
            assertThat(admin.deleteAcls(List.of(bobs)).all().get(10, TimeUnit.SECONDS)).containsExactly(bobWrites);
            assertThat(admin.describeAcls(bobs).values().get(10, TimeUnit.SECONDS)).isEmpty();
        }
        try (Admin alice = Admin.create(cluster.adminConfig("alice"))) {
            assertThatThrownBy(() -> alice.describeAcls(bobs).values().get(10, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(ClusterAuthorizationException.class);
        }
    }

    @Test
    void deleteAclsReportsABindingUnderEveryFilterThatMatchesIt() throws Exception {
        AclBinding doraReads = allow("dora", ResourceType.TOPIC, "dora-ledger", PatternType.LITERAL, AclOperation.READ);
        AclBindingFilter byPrincipal = new AclBindingFilter(ResourcePatternFilter.ANY,
                new AccessControlEntryFilter("User:dora", null, AclOperation.ANY, AclPermissionType.ANY));
        AclBindingFilter byTopic = new AclBindingFilter(
                new ResourcePatternFilter(ResourceType.TOPIC, "dora-ledger", PatternType.LITERAL), AccessControlEntryFilter.ANY);
        try (Admin admin = Admin.create(cluster.adminConfig("admin"))) {
            admin.createAcls(List.of(doraReads)).all().get(10, TimeUnit.SECONDS);
            var results = admin.deleteAcls(List.of(byPrincipal, byTopic)).values();
            for (AclBindingFilter filter : List.of(byPrincipal, byTopic)) {
                assertThat(results.get(filter).get(10, TimeUnit.SECONDS).values())
                        .extracting(r -> r.binding()).containsExactly(doraReads);
            }
            assertThat(admin.describeAcls(byPrincipal).values().get(10, TimeUnit.SECONDS)).isEmpty();
        }
    }

    @Test
    void aclsCreatedByAnAdminSurviveARestartOnTheSameDirectory(@TempDir Path dir) throws Exception {
        Security security = Security.listeners(Protocol.SASL_PLAINTEXT).user("admin", "admin-secret").superUsers("admin");
        AclBinding carolReads = allow("carol", ResourceType.GROUP, "reports", PatternType.LITERAL, AclOperation.READ);
        try (KafkaCluster first = KafkaCluster.builder().dataDirectory(dir).security(security).start();
             Admin admin = Admin.create(first.adminConfig("admin"))) {
            admin.createAcls(List.of(carolReads)).all().get(10, TimeUnit.SECONDS);
        }
        try (KafkaCluster again = KafkaCluster.builder().dataDirectory(dir).security(security).start();
             Admin admin = Admin.create(again.adminConfig("admin"))) {
            assertThat(admin.describeAcls(AclBindingFilter.ANY).values().get(10, TimeUnit.SECONDS)).containsExactly(carolReads);
        }
    }

    @Test
    void clusterOperationsNeedTheirClusterAcl() {
        try (Admin alice = Admin.create(cluster.adminConfig("alice"))) {
            assertThatThrownBy(() -> alice.describeUserScramCredentials().all().get(10, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(ClusterAuthorizationException.class);
            assertThatThrownBy(() -> alice.listPartitionReassignments().reassignments().get(10, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(ClusterAuthorizationException.class);
        }
    }

    @Test
    void groupAdministrationSeesAndTouchesOnlyPermittedGroups() throws Exception {
        try (Admin admin = Admin.create(cluster.adminConfig("admin"))) {
            admin.createAcls(List.of(allow("alice", ResourceType.GROUP, "reports", PatternType.LITERAL, AclOperation.READ)))
                    .all().get(10, TimeUnit.SECONDS);
        }
        consume("alice", "reports", "orders");
        consume("admin", "archivists", "orders");
        try (Admin alice = Admin.create(cluster.adminConfig("alice"))) {
            assertThat(alice.listConsumerGroups().all().get(10, TimeUnit.SECONDS))
                    .extracting(org.apache.kafka.clients.admin.ConsumerGroupListing::groupId)
                    .contains("reports").doesNotContain("archivists");
            assertThatThrownBy(() -> alice.deleteConsumerGroups(List.of("archivists")).all().get(10, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(GroupAuthorizationException.class);
            assertThatThrownBy(() -> alice.describeConsumerGroups(List.of("archivists")).all().get(10, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(GroupAuthorizationException.class);
        }
    }

    @Test
    void configsNeedDescribeConfigsAndAlterConfigs() {
        try (Admin alice = Admin.create(cluster.adminConfig("alice"))) {
            org.apache.kafka.common.config.ConfigResource payments =
                    new org.apache.kafka.common.config.ConfigResource(org.apache.kafka.common.config.ConfigResource.Type.TOPIC, "payments");
            assertThatThrownBy(() -> alice.describeConfigs(List.of(payments)).all().get(10, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(TopicAuthorizationException.class);
            org.apache.kafka.common.config.ConfigResource broker =
                    new org.apache.kafka.common.config.ConfigResource(org.apache.kafka.common.config.ConfigResource.Type.BROKER, "1");
            assertThatThrownBy(() -> alice.describeConfigs(List.of(broker)).all().get(10, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(ClusterAuthorizationException.class);
        }
    }

    @Test
    void aClusterWithoutAclsAnswersSecurityDisabled() throws Exception {
        try (KafkaCluster plain = KafkaCluster.builder().start(); Admin admin = Admin.create(plain.adminConfig())) {
            assertThatThrownBy(() -> admin.describeAcls(AclBindingFilter.ANY).values().get(10, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(SecurityDisabledException.class);
        }
    }

    @Test
    void creatingAndDeletingTopicsNeedCreateAndDelete() {
        try (Admin alice = Admin.create(cluster.adminConfig("alice"))) {
            assertThatThrownBy(() -> alice.createTopics(List.of(new org.apache.kafka.clients.admin.NewTopic("alices", 1, (short) 1)))
                    .all().get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(TopicAuthorizationException.class);
            assertThatThrownBy(() -> alice.deleteTopics(List.of("orders")).all().get(10, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(TopicAuthorizationException.class);
        }
    }

    @Test
    void aSuperUserDoesEverything() throws Exception {
        try (Admin admin = Admin.create(cluster.adminConfig("admin"))) {
            admin.createTopics(List.of(new org.apache.kafka.clients.admin.NewTopic("admin-only", 1, (short) 1)))
                    .all().get(10, TimeUnit.SECONDS);
        }
        produceAsAdmin("admin-only", "mine");
        assertThat(consume("admin", "any-group", "admin-only")).containsExactly("mine");
    }

    private static AclBinding allow(String user, ResourceType type, String name, PatternType pattern, AclOperation operation) {
        return new AclBinding(new ResourcePattern(type, name, pattern),
                new AccessControlEntry("User:" + user, "*", operation, AclPermissionType.ALLOW));
    }

    private static void produceAsAdmin(String topic, String value) {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(cluster.producerConfig("admin"))) {
            producer.send(new ProducerRecord<>(topic, "k", value)).get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /** Reads the topic's one partition to its end with the group, committing what it read. */
    private static List<String> consume(String user, String group, String topic) {
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cluster.consumerConfig(user, group))) {
            consumer.subscribe(List.of(topic));
            List<String> values = new ArrayList<>();
            await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(1)).until(() -> {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    values.add(r.value());
                }
                return !values.isEmpty();
            });
            consumer.commitSync();
            assertThat(consumer.committed(java.util.Set.of(new TopicPartition(topic, 0)))).isNotEmpty();
            return values;
        }
    }
}
