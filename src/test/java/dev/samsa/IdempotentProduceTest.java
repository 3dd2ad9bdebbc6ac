package dev.samsa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.InitProducerIdRequest;
import org.apache.kafka.common.requests.InitProducerIdResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * The idempotent producer's guarantees at the wire, with the batches a producer would send built by hand: a retried
 * batch is appended once, a sequence gap and a fenced epoch are refused without appending anything. Real Kafka is
 * the specification: {@code ProducerAppendInfo} (epoch and sequence checks), {@code ProducerStateEntry}
 * (duplicates among the last five batches) and {@code TransactionCoordinator.handleInitProducerId}.
 */
class IdempotentProduceTest {

    /** The last Produce version that names topics (v13 names them by id). */
    private static final short PRODUCE_VERSION = 11;

    private static KafkaCluster cluster;
    private static Admin admin;

    private RawConnection connection;
    private String topic;
    private TopicPartition partition;

    @BeforeAll
    static void start() {
        cluster = KafkaCluster.builder().seed(23).start();
        admin = Admin.create(cluster.adminConfig());
    }

    @AfterAll
    static void stop() {
        if (admin != null) {
            admin.close(Duration.ofSeconds(10));
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @BeforeEach
    void connect(TestInfo test) throws IOException {
        topic = "idempotent-" + test.getTestMethod().orElseThrow().getName();
        partition = new TopicPartition(topic, 0);
        cluster.createTopic(topic, 1, 1);
        connection = RawConnection.connect(cluster.broker(1));
    }

    @AfterEach
    void disconnect() throws IOException {
        connection.close();
    }

    @Test
    void aRetriedBatchIsAppendedOnceAndAnsweredWithItsFirstOffsets() throws Exception {
        InitProducerIdResponseData producer = initProducerId();
        long pid = producer.producerId();
        short epoch = producer.producerEpoch();
        MemoryRecords batch = batch(pid, epoch, 0, "a", "b", "c");

        PartitionProduceResponse first = produce(batch);
        assertThat(first.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(first.baseOffset()).isZero();
        assertThat(logEndOffset()).isEqualTo(3);

        PartitionProduceResponse retry = produce(batch);
        assertThat(retry.errorCode()).as("a duplicate is a success").isEqualTo(Errors.NONE.code());
        assertThat(retry.baseOffset()).as("the duplicate's offsets are those of the first append").isEqualTo(first.baseOffset());
        assertThat(logEndOffset()).as("appended once").isEqualTo(3);

        PartitionProduceResponse next = produce(batch(pid, epoch, 3, "d"));
        assertThat(next.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(next.baseOffset()).isEqualTo(3);
        assertThat(logEndOffset()).isEqualTo(4);

        assertThat(consumeAll(4)).containsExactly("a", "b", "c", "d");
    }

    @Test
    void aBatchWhoseSequenceSkipsAheadIsRefusedWithOutOfOrderSequenceAndNotAppended() throws Exception {
        InitProducerIdResponseData producer = initProducerId();
        long pid = producer.producerId();
        short epoch = producer.producerEpoch();
        assertThat(produce(batch(pid, epoch, 0, "first")).errorCode()).isEqualTo(Errors.NONE.code());

        PartitionProduceResponse gap = produce(batch(pid, epoch, 5, "after a gap"));
        assertThat(gap.errorCode()).isEqualTo(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER.code());
        assertThat(logEndOffset()).as("nothing appended").isEqualTo(1);

        PartitionProduceResponse inOrder = produce(batch(pid, epoch, 1, "second"));
        assertThat(inOrder.errorCode()).as("the refused batch left no trace in the producer state").isEqualTo(Errors.NONE.code());
        assertThat(inOrder.baseOffset()).isEqualTo(1);
        assertThat(consumeAll(2)).containsExactly("first", "second");
    }

    /**
     * An idempotent producer bumps its epoch by itself (KIP-360, {@code TransactionManager.bumpIdempotentEpochAndResetIdIfNeeded}):
     * the first batch of the new epoch starts at sequence 0, and from then on the partition refuses the old epoch.
     */
    @Test
    void aBatchOfAnOlderEpochIsRefusedWithInvalidProducerEpochOnceANewerEpochWrote() throws Exception {
        InitProducerIdResponseData producer = initProducerId();
        long pid = producer.producerId();
        short oldEpoch = producer.producerEpoch();
        short newEpoch = (short) (oldEpoch + 1);
        assertThat(produce(batch(pid, oldEpoch, 0, "old-0", "old-1")).errorCode()).isEqualTo(Errors.NONE.code());

        PartitionProduceResponse notAtZero = produce(batch(pid, newEpoch, 2, "new epoch, sequence 2"));
        assertThat(notAtZero.errorCode()).as("a new epoch must start at sequence 0")
                .isEqualTo(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER.code());

        PartitionProduceResponse fresh = produce(batch(pid, newEpoch, 0, "new-0"));
        assertThat(fresh.errorCode()).as("a new epoch starting at sequence 0").isEqualTo(Errors.NONE.code());
        assertThat(fresh.baseOffset()).isEqualTo(2);

        PartitionProduceResponse zombie = produce(batch(pid, oldEpoch, 2, "old-2"));
        assertThat(zombie.errorCode()).isEqualTo(Errors.INVALID_PRODUCER_EPOCH.code());
        assertThat(logEndOffset()).as("nothing appended").isEqualTo(3);

        assertThat(produce(batch(pid, newEpoch, 1, "new-1")).errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(consumeAll(4)).containsExactly("old-0", "old-1", "new-0", "new-1");
    }

    /**
     * Kafka's {@code TransactionCoordinator.handleInitProducerId}: without a transactional id "always blindly accept
     * the request and return a new producerId", epoch 0, whatever producer id and epoch the request names.
     */
    @Test
    void initProducerIdWithoutTransactionalIdGivesAFreshProducerIdEvenWhenTheCurrentOneIsNamed() throws Exception {
        short version = connection.latestVersion(ApiKeys.INIT_PRODUCER_ID);
        assertThat(version).as("InitProducerId v3+ carries the current producer id and epoch").isGreaterThanOrEqualTo((short) 3);
        InitProducerIdResponseData current = initProducerId();
        assertThat(produce(batch(current.producerId(), current.producerEpoch(), 0, "x")).errorCode()).isEqualTo(Errors.NONE.code());

        InitProducerIdResponseData again = initProducerId(current.producerId(), current.producerEpoch());
        assertThat(again.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(again.producerId()).isNotEqualTo(current.producerId()).isNotEqualTo(RecordBatch.NO_PRODUCER_ID);
        assertThat(again.producerEpoch()).isZero();
    }

    @Test
    void twoProducersGetDistinctProducerIds() throws Exception {
        InitProducerIdResponseData one = initProducerId();
        InitProducerIdResponseData two;
        try (RawConnection other = RawConnection.connect(cluster.broker(1))) {
            two = initProducerId(other, RecordBatch.NO_PRODUCER_ID, RecordBatch.NO_PRODUCER_EPOCH);
        }
        assertThat(one.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(two.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(one.producerId()).isGreaterThanOrEqualTo(0);
        assertThat(two.producerId()).isGreaterThanOrEqualTo(0).isNotEqualTo(one.producerId());
        assertThat(one.producerEpoch()).isZero();
        assertThat(two.producerEpoch()).isZero();
    }

    private InitProducerIdResponseData initProducerId() throws IOException {
        InitProducerIdResponseData data = initProducerId(RecordBatch.NO_PRODUCER_ID, RecordBatch.NO_PRODUCER_EPOCH);
        assertThat(data.errorCode()).isEqualTo(Errors.NONE.code());
        return data;
    }

    private InitProducerIdResponseData initProducerId(long producerId, short epoch) throws IOException {
        return initProducerId(connection, producerId, epoch);
    }

    private static InitProducerIdResponseData initProducerId(RawConnection c, long producerId, short epoch) throws IOException {
        InitProducerIdRequestData data = new InitProducerIdRequestData().setTransactionalId(null)
                .setTransactionTimeoutMs(Integer.MAX_VALUE).setProducerId(producerId).setProducerEpoch(epoch);
        InitProducerIdRequest request = new InitProducerIdRequest.Builder(data).build(c.latestVersion(ApiKeys.INIT_PRODUCER_ID));
        InitProducerIdResponse response = c.send(request);
        return response.data();
    }

    private static MemoryRecords batch(long producerId, short epoch, int baseSequence, String... values) {
        long now = System.currentTimeMillis();
        SimpleRecord[] records = new SimpleRecord[values.length];
        for (int i = 0; i < values.length; i++) {
            records[i] = new SimpleRecord(now, null, values[i].getBytes(StandardCharsets.UTF_8));
        }
        return MemoryRecords.withIdempotentRecords(Compression.NONE, producerId, epoch, baseSequence, records);
    }

    /** Produces one batch with acks=-1 and returns the answer for the partition. */
    private PartitionProduceResponse produce(MemoryRecords records) throws IOException {
        ProduceRequestData.TopicProduceData topicData = new ProduceRequestData.TopicProduceData().setName(topic);
        topicData.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(records));
        ProduceRequestData data = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(10_000);
        data.topicData().add(topicData);
        ProduceResponse response = connection.send(ProduceRequest.builder(data).build(PRODUCE_VERSION));
        assertThat(response.data().responses()).singleElement()
                .satisfies(t -> assertThat(t.partitionResponses()).singleElement().satisfies(p -> assertThat(p.index()).isZero()));
        return response.data().responses().iterator().next().partitionResponses().get(0);
    }

    private long logEndOffset() throws Exception {
        return admin.listOffsets(Map.of(partition, OffsetSpec.latest())).partitionResult(partition).get().offset();
    }

    /** Every value of the partition, read by a real consumer from offset 0 up to {@code endOffset}. */
    private List<String> consumeAll(long endOffset) {
        List<String> values = new ArrayList<>();
        List<Long> offsets = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cluster.consumerConfig(null))) {
            consumer.assign(List.of(partition));
            consumer.seek(partition, 0);
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(1)).until(() -> {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
                    values.add(r.value());
                    offsets.add(r.offset());
                }
                return consumer.position(partition) >= endOffset;
            });
            assertThat(consumer.position(partition)).isEqualTo(endOffset);
        }
        List<Long> expected = new ArrayList<>();
        for (long o = 0; o < endOffset; o++) {
            expected.add(o);
        }
        assertThat(offsets).as("each offset read exactly once").containsExactlyElementsOf(expected);
        return values;
    }
}
