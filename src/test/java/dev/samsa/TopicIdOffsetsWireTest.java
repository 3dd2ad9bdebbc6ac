package dev.samsa;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.List;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.InitProducerIdRequest;
import org.apache.kafka.common.requests.InitProducerIdResponse;
import org.apache.kafka.common.requests.OffsetCommitRequest;
import org.apache.kafka.common.requests.OffsetCommitResponse;
import org.apache.kafka.common.requests.OffsetFetchRequest;
import org.apache.kafka.common.requests.OffsetFetchResponse;
import org.apache.kafka.common.requests.TxnOffsetCommitRequest;
import org.apache.kafka.common.requests.TxnOffsetCommitResponse;
import org.junit.jupiter.api.Test;

/**
 * OffsetCommit v10, OffsetFetch v10 and TxnOffsetCommit v6 name topics by id (KIP-848, KIP-1319), as a Kafka 4.4
 * broker reads and answers them: an offset committed by id is the one committed by name, and an id no topic has is
 * UNKNOWN_TOPIC_ID.
 */
class TopicIdOffsetsWireTest {

    private static final String TOPIC = "orders";
    private static final String GROUP = "billing";

    private static OffsetCommitResponseData commit(RawConnection c, Uuid topicId, long offset) throws IOException {
        OffsetCommitRequestData data = new OffsetCommitRequestData().setGroupId(GROUP).setMemberId("")
                .setGenerationIdOrMemberEpoch(-1).setTopics(List.of(new OffsetCommitRequestData.OffsetCommitRequestTopic()
                        .setTopicId(topicId).setPartitions(List.of(new OffsetCommitRequestData.OffsetCommitRequestPartition()
                                .setPartitionIndex(0).setCommittedOffset(offset).setCommittedMetadata("m")))));
        OffsetCommitResponse response = c.send(new OffsetCommitRequest(data, (short) 10));
        return response.data();
    }

    private static OffsetFetchResponseData.OffsetFetchResponseGroup fetch(RawConnection c, short version,
                                                                          List<OffsetFetchRequestData.OffsetFetchRequestTopics> topics)
            throws IOException {
        OffsetFetchRequestData data = new OffsetFetchRequestData().setGroups(List.of(
                new OffsetFetchRequestData.OffsetFetchRequestGroup().setGroupId(GROUP).setTopics(topics)));
        OffsetFetchResponse response = c.send(OffsetFetchRequest.Builder.forTopicIdsOrNames(data, false).build(version));
        return response.data().groups().get(0);
    }

    private static Uuid topicId(KafkaCluster cluster) throws Exception {
        try (Admin admin = Admin.create(cluster.adminConfig())) {
            return admin.describeTopics(List.of(TOPIC)).allTopicNames().get().get(TOPIC).topicId();
        }
    }

    @Test
    void anOffsetCommittedByIdIsReadBackByIdAndByName() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().topic(TOPIC, 1, 1).start();
             RawConnection c = RawConnection.connect(cluster.broker(1))) {
            Uuid id = topicId(cluster);
            c.send(new FindCoordinatorRequest.Builder(new FindCoordinatorRequestData().setKeyType((byte) 0)
                    .setCoordinatorKeys(List.of(GROUP))).build());

            OffsetCommitResponseData committed = commit(c, id, 7);
            assertThat(committed.topics()).singleElement().satisfies(t -> {
                assertThat(t.topicId()).isEqualTo(id);
                assertThat(Errors.forCode(t.partitions().get(0).errorCode())).isEqualTo(Errors.NONE);
            });

            OffsetFetchResponseData.OffsetFetchResponseGroup byId = fetch(c, (short) 10, List.of(
                    new OffsetFetchRequestData.OffsetFetchRequestTopics().setTopicId(id).setPartitionIndexes(List.of(0))));
            OffsetFetchResponseData.OffsetFetchResponseGroup all = fetch(c, (short) 10, null);
            OffsetFetchResponseData.OffsetFetchResponseGroup byName = fetch(c, (short) 9, List.of(
                    new OffsetFetchRequestData.OffsetFetchRequestTopics().setName(TOPIC).setPartitionIndexes(List.of(0))));

            for (OffsetFetchResponseData.OffsetFetchResponseGroup answer : List.of(byId, all)) {
                assertThat(answer.topics()).singleElement().satisfies(t -> {
                    assertThat(t.topicId()).isEqualTo(id);
                    assertThat(t.partitions().get(0).committedOffset()).isEqualTo(7);
                });
            }
            assertThat(byName.topics().get(0).name()).isEqualTo(TOPIC);
            assertThat(byName.topics().get(0).partitions().get(0).committedOffset()).isEqualTo(7);
            assertThat(cluster.group(GROUP).committed()).containsValue(7L);
        }
    }

    @Test
    void anIdNoTopicHasIsUnknownTopicId() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().topic(TOPIC, 1, 1).start();
             RawConnection c = RawConnection.connect(cluster.broker(1))) {
            c.send(new FindCoordinatorRequest.Builder(new FindCoordinatorRequestData().setKeyType((byte) 0)
                    .setCoordinatorKeys(List.of(GROUP))).build());
            Uuid nobody = Uuid.randomUuid();

            OffsetCommitResponseData committed = commit(c, nobody, 3);
            OffsetFetchResponseData.OffsetFetchResponseGroup fetched = fetch(c, (short) 10, List.of(
                    new OffsetFetchRequestData.OffsetFetchRequestTopics().setTopicId(nobody).setPartitionIndexes(List.of(0))));

            assertThat(committed.topics().get(0).topicId()).isEqualTo(nobody);
            assertThat(Errors.forCode(committed.topics().get(0).partitions().get(0).errorCode())).isEqualTo(Errors.UNKNOWN_TOPIC_ID);
            assertThat(fetched.topics()).singleElement().satisfies(t -> {
                assertThat(t.topicId()).isEqualTo(nobody);
                assertThat(Errors.forCode(t.partitions().get(0).errorCode())).isEqualTo(Errors.UNKNOWN_TOPIC_ID);
                assertThat(t.partitions().get(0).committedOffset()).isEqualTo(-1);
            });
        }
    }

    @Test
    void aTransactionalCommitNamesItsTopicByIdAndHearsGroupIdNotFoundFromV6() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().topic(TOPIC, 1, 1).start();
             RawConnection c = RawConnection.connect(cluster.broker(1))) {
            Uuid id = topicId(cluster);
            c.send(new FindCoordinatorRequest.Builder(new FindCoordinatorRequestData().setKeyType((byte) 1)
                    .setCoordinatorKeys(List.of("tx"))).build());
            c.send(new FindCoordinatorRequest.Builder(new FindCoordinatorRequestData().setKeyType((byte) 0)
                    .setCoordinatorKeys(List.of(GROUP))).build());
            InitProducerIdResponse init = c.send(new InitProducerIdRequest.Builder(new InitProducerIdRequestData()
                    .setTransactionalId("tx").setTransactionTimeoutMs(60_000)).build());
            InitProducerIdResponseData producer = init.data();

            TxnOffsetCommitResponseData committed = txnCommit(c, producer, id, GROUP, -1, (short) 6);
            TxnOffsetCommitResponseData unknownGroup = txnCommit(c, producer, id, "no-such-group", 3, (short) 6);
            TxnOffsetCommitResponseData unknownGroupV5 = txnCommitByName(c, producer, "no-such-group", 3);

            assertThat(committed.topics().get(0).topicId()).isEqualTo(id);
            assertThat(Errors.forCode(committed.topics().get(0).partitions().get(0).errorCode())).isEqualTo(Errors.NONE);
            assertThat(Errors.forCode(unknownGroup.topics().get(0).partitions().get(0).errorCode()))
                    .isEqualTo(Errors.GROUP_ID_NOT_FOUND);
            assertThat(Errors.forCode(unknownGroupV5.topics().get(0).partitions().get(0).errorCode()))
                    .as("before v6").isEqualTo(Errors.ILLEGAL_GENERATION);
            assertThat(Errors.forCode(txnCommit(c, producer, Uuid.randomUuid(), GROUP, -1, (short) 6)
                    .topics().get(0).partitions().get(0).errorCode())).isEqualTo(Errors.UNKNOWN_TOPIC_ID);
        }
    }

    private static TxnOffsetCommitResponseData txnCommit(RawConnection c, InitProducerIdResponseData producer, Uuid topicId,
                                                         String group, int generation, short version) throws IOException {
        TxnOffsetCommitRequestData data = txnData(producer, group, generation);
        data.topics().add(new TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic().setTopicId(topicId)
                .setPartitions(List.of(new TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition()
                        .setPartitionIndex(0).setCommittedOffset(5).setCommittedMetadata(""))));
        TxnOffsetCommitResponse response = c.send(TxnOffsetCommitRequest.Builder.forTopicIdsOrNames(data, true).build(version));
        return response.data();
    }

    private static TxnOffsetCommitResponseData txnCommitByName(RawConnection c, InitProducerIdResponseData producer,
                                                               String group, int generation) throws IOException {
        TxnOffsetCommitRequestData data = txnData(producer, group, generation);
        data.topics().add(new TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic().setName(TOPIC)
                .setPartitions(List.of(new TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition()
                        .setPartitionIndex(0).setCommittedOffset(5).setCommittedMetadata(""))));
        TxnOffsetCommitResponse response = c.send(TxnOffsetCommitRequest.Builder.forTopicNames(data, true).build((short) 5));
        return response.data();
    }

    private static TxnOffsetCommitRequestData txnData(InitProducerIdResponseData producer, String group, int generation) {
        return new TxnOffsetCommitRequestData().setTransactionalId("tx").setGroupId(group)
                .setProducerId(producer.producerId()).setProducerEpoch(producer.producerEpoch())
                .setGenerationIdOrMemberEpoch(generation).setMemberId(generation < 0 ? "" : "member-1");
    }
}
