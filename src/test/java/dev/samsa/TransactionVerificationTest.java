package dev.samsa;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTopicCollection;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTransaction;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTransactionCollection;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.AddPartitionsToTxnRequest;
import org.apache.kafka.common.requests.AddPartitionsToTxnResponse;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.FindCoordinatorResponse;
import org.apache.kafka.common.requests.InitProducerIdRequest;
import org.apache.kafka.common.requests.InitProducerIdResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.junit.jupiter.api.Test;

/**
 * KIP-890 part 1 on the wire: a transactional produce to a partition outside the producer's open transaction is
 * refused, with the error Kafka gives each Produce version, unless transaction.partition.verification.enable is off;
 * and what AddPartitionsToTxn refuses to put in a transaction.
 */
class TransactionVerificationTest {

    private static final TopicPartition ADDED = new TopicPartition("t", 0);
    private static final TopicPartition NOT_ADDED = new TopicPartition("t", 1);

    @Test
    void aTransactionalProduceToAPartitionOutsideTheTransactionIsRefused() throws IOException {
        try (KafkaCluster cluster = KafkaCluster.builder().topic("t", 2, 1).start();
             RawConnection c = RawConnection.connect(cluster.broker(1))) {
            InitProducerIdResponseData producer = beginTransaction(c, "tx-verify");

            assertThat(produce(c, ADDED, producer, 0, 11)).isEqualTo(Errors.NONE);
            assertThat(produce(c, NOT_ADDED, producer, 0, 11)).isEqualTo(Errors.TRANSACTION_ABORTABLE);
            // Clients before Produce v11 do not know TRANSACTION_ABORTABLE.
            assertThat(produce(c, NOT_ADDED, producer, 0, 10)).isEqualTo(Errors.INVALID_TXN_STATE);
        }
    }

    @Test
    void aProduceWithAFencedEpochIsRefusedAsAnInvalidEpoch() throws IOException {
        try (KafkaCluster cluster = KafkaCluster.builder().topic("t", 2, 1).start();
             RawConnection c = RawConnection.connect(cluster.broker(1))) {
            InitProducerIdResponseData old = beginTransaction(c, "tx-verify");
            InitProducerIdResponseData next = retryInit(c, "tx-verify");

            assertThat(next.producerEpoch()).isGreaterThan(old.producerEpoch());
            assertThat(produce(c, ADDED, old, 1, 11)).isEqualTo(Errors.INVALID_PRODUCER_EPOCH);
        }
    }

    @Test
    void withVerificationOffALateProduceOpensATransactionOnThePartition() throws IOException {
        try (KafkaCluster cluster = KafkaCluster.builder().topic("t", 2, 1)
                .brokerConfig("transaction.partition.verification.enable", "false").start();
             RawConnection c = RawConnection.connect(cluster.broker(1))) {
            InitProducerIdResponseData producer = beginTransaction(c, "tx-verify");

            assertThat(produce(c, NOT_ADDED, producer, 0, 11)).isEqualTo(Errors.NONE);
        }
    }

    @Test
    void theBrokerFormVerifiesEachTransactionOfTheBatch() throws IOException {
        try (KafkaCluster cluster = KafkaCluster.builder().topic("t", 2, 1).start();
             RawConnection c = RawConnection.connect(cluster.broker(1))) {
            InitProducerIdResponseData producer = beginTransaction(c, "tx-verify");
            AddPartitionsToTxnTransactionCollection transactions = new AddPartitionsToTxnTransactionCollection();
            transactions.add(transaction("tx-verify", producer.producerId(), producer.producerEpoch(), ADDED, NOT_ADDED));
            transactions.add(transaction("tx-unknown", 4242, (short) 0, ADDED));

            AddPartitionsToTxnResponse response = c.send(AddPartitionsToTxnRequest.Builder.forBroker(transactions).build((short) 5));

            assertThat(response.errors()).isEqualTo(Map.of(
                    "tx-verify", Map.of(ADDED, Errors.NONE, NOT_ADDED, Errors.TRANSACTION_ABORTABLE),
                    "tx-unknown", Map.of(ADDED, Errors.INVALID_PRODUCER_ID_MAPPING)));
        }
    }

    @Test
    void aClientCannotAddAnInternalOrUnknownTopicAndNothingElseOfItsRequestIsAdded() throws IOException {
        try (KafkaCluster cluster = KafkaCluster.builder().topic("t", 2, 1).start();
             RawConnection c = RawConnection.connect(cluster.broker(1))) {
            InitProducerIdResponseData producer = beginTransaction(c, "tx-verify");
            TopicPartition internal = new TopicPartition("__transaction_state", 0);
            TopicPartition unknown = new TopicPartition("nowhere", 0);

            AddPartitionsToTxnResponse response = c.send(AddPartitionsToTxnRequest.Builder.forClient("tx-verify",
                    producer.producerId(), producer.producerEpoch(), List.of(NOT_ADDED, internal, unknown)).build((short) 3));

            assertThat(response.errors().values()).singleElement().isEqualTo(Map.of(NOT_ADDED, Errors.OPERATION_NOT_ATTEMPTED,
                    internal, Errors.TOPIC_AUTHORIZATION_FAILED, unknown, Errors.UNKNOWN_TOPIC_OR_PARTITION));
            assertThat(produce(c, NOT_ADDED, producer, 0, 11)).isEqualTo(Errors.TRANSACTION_ABORTABLE);
        }
    }

    private static AddPartitionsToTxnTransaction transaction(String id, long producerId, short epoch, TopicPartition... partitions) {
        AddPartitionsToTxnTopicCollection topics = new AddPartitionsToTxnTopicCollection();
        AddPartitionsToTxnTopic topic = new AddPartitionsToTxnTopic().setName("t");
        for (TopicPartition tp : partitions) {
            topic.partitions().add(tp.partition());
        }
        topics.add(topic);
        return new AddPartitionsToTxnTransaction().setTransactionalId(id).setProducerId(producerId).setProducerEpoch(epoch)
                .setVerifyOnly(true).setTopics(topics);
    }

    /** FindCoordinator (which creates __transaction_state), InitProducerId, and AddPartitionsToTxn of {@link #ADDED}. */
    private static InitProducerIdResponseData beginTransaction(RawConnection c, String transactionalId) throws IOException {
        FindCoordinatorResponse coordinator = c.send(new FindCoordinatorRequest.Builder(new FindCoordinatorRequestData()
                .setKeyType(FindCoordinatorRequest.CoordinatorType.TRANSACTION.id()).setCoordinatorKeys(List.of(transactionalId)))
                .build((short) 4));
        assertThat(coordinator.data().coordinators()).singleElement().satisfies(k -> assertThat(k.errorCode()).isZero());
        InitProducerIdResponseData producer = retryInit(c, transactionalId);
        AddPartitionsToTxnResponse added = c.send(AddPartitionsToTxnRequest.Builder.forClient(transactionalId,
                producer.producerId(), producer.producerEpoch(), List.of(ADDED)).build((short) 3));
        assertThat(added.errors().values()).singleElement().isEqualTo(Map.of(ADDED, Errors.NONE));
        return producer;
    }

    /** InitProducerId until it is not CONCURRENT_TRANSACTIONS (an open transaction is aborted first). */
    private static InitProducerIdResponseData retryInit(RawConnection c, String transactionalId) throws IOException {
        for (int attempt = 0; ; attempt++) {
            InitProducerIdResponse response = c.send(new InitProducerIdRequest.Builder(new InitProducerIdRequestData()
                    .setTransactionalId(transactionalId).setTransactionTimeoutMs(60_000)).build((short) 5));
            if (response.data().errorCode() != Errors.CONCURRENT_TRANSACTIONS.code() || attempt == 50) {
                assertThat(Errors.forCode(response.data().errorCode())).isEqualTo(Errors.NONE);
                return response.data();
            }
        }
    }

    private static Errors produce(RawConnection c, TopicPartition tp, InitProducerIdResponseData producer, int sequence,
                                  int version) throws IOException {
        MemoryRecords records = MemoryRecords.withTransactionalRecords(Compression.NONE, producer.producerId(),
                producer.producerEpoch(), sequence, new SimpleRecord(0, null, "v".getBytes(StandardCharsets.UTF_8)));
        ProduceRequestData.TopicProduceData topicData = new ProduceRequestData.TopicProduceData().setName(tp.topic());
        topicData.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(tp.partition()).setRecords(records));
        ProduceRequestData data = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(10_000).setTransactionalId("tx-verify");
        data.topicData().add(topicData);
        ProduceResponse response = c.send(ProduceRequest.builder(data).build((short) version));
        return Errors.forCode(response.data().responses().iterator().next().partitionResponses().get(0).errorCode());
    }
}
