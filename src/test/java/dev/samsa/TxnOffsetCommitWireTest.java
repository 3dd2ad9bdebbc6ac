package dev.samsa;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.List;
import org.apache.kafka.common.message.AddOffsetsToTxnRequestData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AddOffsetsToTxnRequest;
import org.apache.kafka.common.requests.AddOffsetsToTxnResponse;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.InitProducerIdRequest;
import org.apache.kafka.common.requests.InitProducerIdResponse;
import org.apache.kafka.common.requests.OffsetFetchRequest;
import org.apache.kafka.common.requests.OffsetFetchResponse;
import org.apache.kafka.common.requests.TxnOffsetCommitRequest;
import org.apache.kafka.common.requests.TxnOffsetCommitResponse;
import org.junit.jupiter.api.Test;

/**
 * TxnOffsetCommit and OffsetFetch's requireStable on the wire, where the real clients cannot go: a commit whose group
 * partition was never added to the transaction, and the exact place of UNSTABLE_OFFSET_COMMIT in each OffsetFetch
 * form. One broker, so it coordinates both the transaction and the group.
 */
class TxnOffsetCommitWireTest {

    private static final String GROUP = "billing";
    private static final String TXN = "tx-billing";

    private static TxnOffsetCommitRequestData commit(InitProducerIdResponseData producer, long offset) {
        return new TxnOffsetCommitRequestData().setTransactionalId(TXN).setGroupId(GROUP)
                .setProducerId(producer.producerId()).setProducerEpoch(producer.producerEpoch())
                .setGenerationIdOrMemberEpoch(-1).setMemberId("").setTopics(List.of(new TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic()
                        .setName("orders").setPartitions(List.of(new TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition()
                                .setPartitionIndex(0).setCommittedOffset(offset).setCommittedMetadata("")))));
    }

    private static Errors partitionError(TxnOffsetCommitResponse response) {
        return Errors.forCode(response.data().topics().get(0).partitions().get(0).errorCode());
    }

    private static InitProducerIdResponseData initProducerId(RawConnection c) throws IOException {
        c.send(new FindCoordinatorRequest.Builder(new FindCoordinatorRequestData().setKeyType((byte) 1)
                .setCoordinatorKeys(List.of(TXN))).build());
        c.send(new FindCoordinatorRequest.Builder(new FindCoordinatorRequestData().setKeyType((byte) 0)
                .setCoordinatorKeys(List.of(GROUP))).build());
        InitProducerIdResponse init = c.send(new InitProducerIdRequest.Builder(new InitProducerIdRequestData()
                .setTransactionalId(TXN).setTransactionTimeoutMs(60_000)).build());
        assertThat(init.error()).isEqualTo(Errors.NONE);
        return init.data();
    }

    @Test
    void aCommitForAGroupOutsideTheTransactionIsRefusedAsKafkaRefusesIt() throws IOException {
        try (KafkaCluster cluster = KafkaCluster.builder().topic("orders", 1, 1).start();
             RawConnection c = RawConnection.connect(cluster.broker(1))) {
            InitProducerIdResponseData producer = initProducerId(c);

            TxnOffsetCommitResponse v3 = c.send(TxnOffsetCommitRequest.Builder.forTopicNames(commit(producer, 5), true).build((short) 3));
            TxnOffsetCommitResponse v4 = c.send(TxnOffsetCommitRequest.Builder.forTopicNames(commit(producer, 5), true).build((short) 4));

            assertThat(partitionError(v3)).as("before KIP-890's new error").isEqualTo(Errors.INVALID_TXN_STATE);
            assertThat(partitionError(v4)).isEqualTo(Errors.TRANSACTION_ABORTABLE);
            assertThat(cluster.group(GROUP).committed()).isEmpty();
        }
    }

    @Test
    void requireStableAnswersUnstableOffsetCommitPerPartitionInBothForms() throws IOException {
        try (KafkaCluster cluster = KafkaCluster.builder().topic("orders", 1, 1).start();
             RawConnection c = RawConnection.connect(cluster.broker(1))) {
            InitProducerIdResponseData producer = initProducerId(c);
            AddOffsetsToTxnResponse added = c.send(new AddOffsetsToTxnRequest.Builder(new AddOffsetsToTxnRequestData()
                    .setTransactionalId(TXN).setProducerId(producer.producerId()).setProducerEpoch(producer.producerEpoch())
                    .setGroupId(GROUP)).build());
            assertThat(Errors.forCode(added.data().errorCode())).isEqualTo(Errors.NONE);

            TxnOffsetCommitResponse committed = c.send(TxnOffsetCommitRequest.Builder.forTopicNames(commit(producer, 5), true).build((short) 3));
            assertThat(partitionError(committed)).isEqualTo(Errors.NONE);

            OffsetFetchResponse single = c.send(fetch(true).build((short) 7));
            OffsetFetchResponseData.OffsetFetchResponsePartition p7 = single.data().topics().get(0).partitions().get(0);
            assertThat(Errors.forCode(single.data().errorCode())).as("v7 top-level error").isEqualTo(Errors.NONE);
            assertThat(Errors.forCode(p7.errorCode())).isEqualTo(Errors.UNSTABLE_OFFSET_COMMIT);
            assertThat(p7.committedOffset()).isEqualTo(-1);

            OffsetFetchResponse batched = c.send(fetch(true).build((short) 8));
            OffsetFetchResponseData.OffsetFetchResponseGroup group = batched.data().groups().get(0);
            assertThat(Errors.forCode(group.errorCode())).as("v8 group error").isEqualTo(Errors.NONE);
            assertThat(Errors.forCode(group.topics().get(0).partitions().get(0).errorCode())).isEqualTo(Errors.UNSTABLE_OFFSET_COMMIT);

            OffsetFetchResponse unstableAllowed = c.send(fetch(false).build((short) 8));
            OffsetFetchResponseData.OffsetFetchResponsePartitions last = unstableAllowed.data().groups().get(0).topics().get(0)
                    .partitions().get(0);
            assertThat(Errors.forCode(last.errorCode())).as("without requireStable").isEqualTo(Errors.NONE);
            assertThat(last.committedOffset()).as("nothing committed yet").isEqualTo(-1);
        }
    }

    private static OffsetFetchRequest.Builder fetch(boolean requireStable) {
        return OffsetFetchRequest.Builder.forTopicNames(new OffsetFetchRequestData().setRequireStable(requireStable)
                .setGroups(List.of(new OffsetFetchRequestData.OffsetFetchRequestGroup().setGroupId(GROUP)
                        .setTopics(List.of(new OffsetFetchRequestData.OffsetFetchRequestTopics().setName("orders")
                                .setPartitionIndexes(List.of(0)))))), true);
    }
}
