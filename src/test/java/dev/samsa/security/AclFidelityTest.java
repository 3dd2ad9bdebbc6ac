package dev.samsa.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.samsa.KafkaCluster;
import dev.samsa.RawConnection;
import dev.samsa.Security;
import dev.samsa.Security.Operation;
import dev.samsa.Security.Protocol;
import dev.samsa.Security.Resource;
import dev.samsa.event.AuthorizationDenied;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DeleteConsumerGroupOffsetsResult;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.DescribeConsumerGroupsOptions;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.requests.OffsetsForLeaderEpochRequest;
import org.apache.kafka.common.requests.OffsetsForLeaderEpochResponse;
import org.apache.kafka.common.requests.TransactionResult;
import org.apache.kafka.common.requests.WriteTxnMarkersRequest;
import org.apache.kafka.common.requests.WriteTxnMarkersResponse;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.AddPartitionsToTxnRequest;
import org.apache.kafka.common.requests.AddPartitionsToTxnResponse;
import org.apache.kafka.common.requests.OffsetFetchRequest;
import org.apache.kafka.common.requests.OffsetFetchResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Where Kafka's ACL checks are subtle: authorizing before saying whether a topic exists, per-partition answers of old
 * request versions, authorized-operations fields. One PLAINTEXT cluster with the authorizer on, so every client is
 * User:ANONYMOUS: it may READ topic orders, READ and DELETE group billing, DESCRIBE topics prefixed visible- and the
 * cluster.
 */
class AclFidelityTest {

    private static final String ANONYMOUS = "ANONYMOUS";
    private static KafkaCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        cluster = KafkaCluster.builder()
                .topic("orders", 1, 1).topic("secret", 1, 1).topic("visible-a", 1, 1)
                .security(Security.listeners(Protocol.PLAINTEXT)
                        .allow(ANONYMOUS, Operation.READ, Resource.TOPIC, "orders")
                        .allow(ANONYMOUS, Operation.READ, Resource.GROUP, "billing")
                        .allow(ANONYMOUS, Operation.DELETE, Resource.GROUP, "billing")
                        .allowPrefixed(ANONYMOUS, Operation.DESCRIBE, Resource.TOPIC, "visible-")
                        .allow(ANONYMOUS, Operation.DESCRIBE, Resource.CLUSTER, "kafka-cluster"))
                .start();
        try (Admin admin = admin()) {
            admin.alterConsumerGroupOffsets("billing", Map.of(new TopicPartition("orders", 0), new OffsetAndMetadata(0)))
                    .all().get(10, TimeUnit.SECONDS);
        }
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    @Test
    void deleteTopicsRefusesAnUndescribableTopicWhetherOrNotItExists() {
        try (Admin admin = admin()) {
            for (String topic : List.of("missing", "secret", "visible-a")) {
                assertThatThrownBy(() -> admin.deleteTopics(List.of(topic)).all().get(10, TimeUnit.SECONDS)).as(topic)
                        .hasCauseInstanceOf(TopicAuthorizationException.class);
            }
            // DESCRIBE lets the client learn that a topic does not exist
            assertThatThrownBy(() -> admin.deleteTopics(List.of("visible-missing")).all().get(10, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(UnknownTopicOrPartitionException.class);
        }
    }

    @Test
    void produceToAMissingTopicWithoutWriteIsTopicAuthorizationFailed() throws Exception {
        ProduceRequestData data = new ProduceRequestData().setAcks((short) 1).setTimeoutMs(5000);
        data.topicData().add(new ProduceRequestData.TopicProduceData().setName("missing").setPartitionData(List.of(
                new ProduceRequestData.PartitionProduceData().setIndex(0)
                        .setRecords(MemoryRecords.withRecords(Compression.NONE, new SimpleRecord("v".getBytes()))))));
        try (RawConnection c = RawConnection.connect(cluster.broker(1))) {
            ProduceResponse response = c.send(ProduceRequest.builder(data).build((short) 9));
            assertThat(Errors.forCode(response.data().responses().iterator().next().partitionResponses().get(0).errorCode()))
                    .isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED);
        }
    }

    @Test
    void offsetFetchBelowVersion8AnswersAnUnauthorizedGroupAsKafka() throws Exception {
        try (RawConnection c = RawConnection.connect(cluster.broker(1))) {
            OffsetFetchResponseData v7 = c.<OffsetFetchResponse>send(offsetFetch("payroll").build((short) 7)).data();
            assertThat(Errors.forCode(v7.errorCode())).isEqualTo(Errors.GROUP_AUTHORIZATION_FAILED);
            assertThat(v7.topics()).isEmpty();

            OffsetFetchResponseData v1 = c.<OffsetFetchResponse>send(offsetFetch("payroll").build((short) 1)).data();
            OffsetFetchResponseData.OffsetFetchResponsePartition p = v1.topics().get(0).partitions().get(0);
            assertThat(Errors.forCode(p.errorCode())).isEqualTo(Errors.GROUP_AUTHORIZATION_FAILED);
            assertThat(p.committedOffset()).isEqualTo(-1);
        }
    }

    @Test
    void addPartitionsToTxnFromAClientAnswersAnUnauthorizedTransactionalIdPerPartition() throws Exception {
        List<TopicPartition> partitions = List.of(new TopicPartition("orders", 0), new TopicPartition("secret", 0));
        try (RawConnection c = RawConnection.connect(cluster.broker(1))) {
            AddPartitionsToTxnResponse response = c.send(AddPartitionsToTxnRequest.Builder
                    .forClient("payments-tx", 1000, (short) 0, partitions).build((short) 3));
            assertThat(response.errors().get(AddPartitionsToTxnResponse.V3_AND_BELOW_TXN_ID)).isEqualTo(Map.of(
                    partitions.get(0), Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
                    partitions.get(1), Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED));
        }
    }

    @Test
    void offsetDeleteNeedsReadOnEachTopicBeforeItsExistenceIsChecked() throws Exception {
        try (Admin admin = admin()) {
            TopicPartition orders = new TopicPartition("orders", 0);
            TopicPartition secret = new TopicPartition("secret", 0);
            TopicPartition missing = new TopicPartition("missing", 0);
            DeleteConsumerGroupOffsetsResult result = admin.deleteConsumerGroupOffsets("billing", Set.of(orders, secret, missing));
            result.partitionResult(orders).get(10, TimeUnit.SECONDS);
            assertThatThrownBy(() -> result.partitionResult(secret).get(10, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(TopicAuthorizationException.class);
            assertThatThrownBy(() -> result.partitionResult(missing).get(10, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(TopicAuthorizationException.class);
        }
    }

    @Test
    void authorizedOperationsAreWhatTheAclsGrant() throws Exception {
        try (Admin admin = admin()) {
            assertThat(admin.describeCluster(new DescribeClusterOptions().includeAuthorizedOperations(true))
                    .authorizedOperations().get(10, TimeUnit.SECONDS)).containsExactly(AclOperation.DESCRIBE);
            assertThat(admin.describeCluster().authorizedOperations().get(10, TimeUnit.SECONDS)).isNull();
            assertThat(admin.describeTopics(List.of("orders"), new DescribeTopicsOptions().includeAuthorizedOperations(true))
                    .allTopicNames().get(10, TimeUnit.SECONDS).get("orders").authorizedOperations())
                    .containsExactlyInAnyOrder(AclOperation.READ, AclOperation.DESCRIBE);
            assertThat(admin.describeConsumerGroups(List.of("billing"),
                    new DescribeConsumerGroupsOptions().includeAuthorizedOperations(true))
                    .all().get(10, TimeUnit.SECONDS).get("billing").authorizedOperations())
                    .containsExactlyInAnyOrder(AclOperation.READ, AclOperation.DELETE, AclOperation.DESCRIBE);
        }
    }

    @Test
    void aClientDeniedAgainAndAgainIsOneAuthorizationDeniedEventAndHidingIsNone() throws Exception {
        try (Admin admin = admin()) {
            for (int i = 0; i < 3; i++) {
                assertThatThrownBy(() -> admin.describeConsumerGroups(List.of("payroll")).all().get(10, TimeUnit.SECONDS))
                        .hasCauseInstanceOf(GroupAuthorizationException.class);
            }
            assertThat(admin.listTopics().names().get(10, TimeUnit.SECONDS)).doesNotContain("secret");
        }
        assertThat(cluster.events().events(AuthorizationDenied.class).stream()
                .filter(d -> d.resourceName().equals("payroll") || d.api().equals("METADATA")))
                .containsExactly(new AuthorizationDenied(1, "User:ANONYMOUS", "DESCRIBE", "GROUP", "payroll", "FIND_COORDINATOR"));
    }

    @Test
    void clusterActionOrAlterStandsInForPerTopicChecksWhereKafkaAllowsIt() throws Exception {
        var secret = new OffsetForLeaderEpochRequestData.OffsetForLeaderTopicCollection();
        secret.add(new OffsetForLeaderEpochRequestData.OffsetForLeaderTopic().setTopic("secret").setPartitions(List.of(
                new OffsetForLeaderEpochRequestData.OffsetForLeaderPartition().setPartition(0).setLeaderEpoch(0).setCurrentLeaderEpoch(-1))));
        List<WriteTxnMarkersRequest.TxnMarkerEntry> marker = List.of(new WriteTxnMarkersRequest.TxnMarkerEntry(
                1000, (short) 0, 0, TransactionResult.ABORT, List.of(new TopicPartition("secret", 0)), (short) 0));
        Security anonymousMay = Security.listeners(Protocol.PLAINTEXT).allow(ANONYMOUS, Operation.READ, Resource.GROUP, "none");
        try (KafkaCluster plain = KafkaCluster.builder().topic("secret", 1, 1).security(anonymousMay).start();
             RawConnection c = RawConnection.connect(plain.broker(1))) {
            assertThat(epochError(c, secret)).isEqualTo(Errors.TOPIC_AUTHORIZATION_FAILED);
            assertThat(markerError(c, marker)).isEqualTo(Errors.CLUSTER_AUTHORIZATION_FAILED);
        }
        try (KafkaCluster follower = KafkaCluster.builder().topic("secret", 1, 1)
                .security(anonymousMay.allow(ANONYMOUS, Operation.CLUSTER_ACTION, Resource.CLUSTER, "kafka-cluster")).start();
             RawConnection c = RawConnection.connect(follower.broker(1))) {
            assertThat(epochError(c, secret)).isEqualTo(Errors.NONE);
        }
        try (KafkaCluster alter = KafkaCluster.builder().topic("secret", 1, 1)
                .security(anonymousMay.allow(ANONYMOUS, Operation.ALTER, Resource.CLUSTER, "kafka-cluster")).start();
             RawConnection c = RawConnection.connect(alter.broker(1))) {
            assertThat(markerError(c, marker)).isNotEqualTo(Errors.CLUSTER_AUTHORIZATION_FAILED);
        }
    }

    private static Errors epochError(RawConnection c, OffsetForLeaderEpochRequestData.OffsetForLeaderTopicCollection topics)
            throws Exception {
        OffsetsForLeaderEpochResponse response = c.send(OffsetsForLeaderEpochRequest.Builder.forConsumer(topics).build((short) 4));
        return Errors.forCode(response.data().topics().iterator().next().partitions().get(0).errorCode());
    }

    private static Errors markerError(RawConnection c, List<WriteTxnMarkersRequest.TxnMarkerEntry> markers) throws Exception {
        WriteTxnMarkersResponse response = c.send(new WriteTxnMarkersRequest.Builder(markers).build((short) 1));
        return response.errorsByProducerId().get(1000L).get(new TopicPartition("secret", 0));
    }

    private static OffsetFetchRequest.Builder offsetFetch(String group) {
        return OffsetFetchRequest.Builder.forTopicNames(new OffsetFetchRequestData().setGroups(List.of(
                new OffsetFetchRequestData.OffsetFetchRequestGroup().setGroupId(group).setTopics(List.of(
                        new OffsetFetchRequestData.OffsetFetchRequestTopics().setName("orders").setPartitionIndexes(List.of(0)))))),
                false);
    }

    private static Admin admin() {
        return Admin.create(Map.of("bootstrap.servers", cluster.bootstrapServers()));
    }
}
