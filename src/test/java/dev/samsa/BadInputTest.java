package dev.samsa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.RequestUtils;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Bad bytes on one connection close that connection only: a real producer on its own connection keeps producing
 * before and after every case, and no thread of the JVM dies of an uncaught exception.
 */
class BadInputTest {

    private static final String CANARY = "bad-input-canary";
    private static final String TARGET = "bad-input-target";

    private static KafkaCluster cluster;
    private static CanaryCluster canary;

    @BeforeAll
    static void start() {
        canary = new CanaryCluster(KafkaCluster.builder().seed(11).topic(CANARY, 1, 1).topic(TARGET, 1, 1), CANARY);
        cluster = canary.cluster();
    }

    @AfterAll
    static void stop() {
        if (canary != null) {
            canary.close();
        }
    }

    @BeforeEach
    @AfterEach
    void theCanaryProducerStillWorks() throws Exception {
        canary.assertStillProduces();
    }

    @Test
    void garbageWithAnUnknownApiKeyClosesThatConnection() throws Exception {
        byte[] garbage = new byte[20];
        new Random(42).nextBytes(garbage);
        garbage[0] = 0x7F; // api key 0x7FFF: unknown
        garbage[1] = (byte) 0xFF;
        try (RawConnection connection = connect()) {
            connection.writeFrame(ByteBuffer.wrap(garbage));
            awaitClosedByBroker(connection);
        }
    }

    @Test
    void aTwoGibibyteLengthPrefixClosesThatConnectionWithoutAllocatingIt() throws Exception {
        try (RawConnection connection = connect()) {
            connection.writeInt(0x7FFFFFFF);
            awaitClosedByBroker(connection);
        }
    }

    @Test
    void aNegativeLengthPrefixClosesThatConnection() throws Exception {
        try (RawConnection connection = connect()) {
            connection.writeInt(-1);
            awaitClosedByBroker(connection);
        }
    }

    @Test
    void aFrameCutShortClosesThatConnection() throws Exception {
        try (RawConnection connection = connect()) {
            connection.writeInt(100);
            connection.writeRaw(new byte[10]);
            connection.shutdownOutput();
            awaitClosedByBroker(connection);
        }
    }

    @Test
    void anUnsupportedVersionOfAKnownApiClosesThatConnection() throws Exception {
        try (RawConnection connection = connect()) {
            RequestHeader header = connection.nextHeader(ApiKeys.METADATA, (short) 99);
            connection.writeFrame(RequestUtils.serialize(header.data(), header.headerVersion(), new MetadataRequestData(), (short) 12));
            awaitClosedByBroker(connection);
        }
    }

    @Test
    void aBodyThatDoesNotParseClosesThatConnection() throws Exception {
        try (RawConnection connection = connect()) {
            RequestHeader header = connection.nextHeader(ApiKeys.METADATA, (short) 12);
            ByteBuffer headerOnly = RequestUtils.serialize(header.data(), header.headerVersion(), new MetadataRequestData(), (short) 12);
            ByteBuffer truncated = ByteBuffer.wrap(new byte[header.size() + 1]);
            truncated.put(headerOnly.array(), headerOnly.arrayOffset(), header.size()).put((byte) 0x7F).flip();
            connection.writeFrame(truncated);
            awaitClosedByBroker(connection);
        }
    }

    @Test
    void anApiVersionsRequestOfAnUnknownVersionIsAnsweredWithUnsupportedVersionAndTheApiList() throws Exception {
        ApiVersionsRequestData body = new ApiVersionsRequestData().setClientSoftwareName("bad-input-test")
                .setClientSoftwareVersion("1.0");
        try (RawConnection connection = connect()) {
            RequestHeader header = connection.nextHeader(ApiKeys.API_VERSIONS, (short) 127);
            connection.writeFrame(RequestUtils.serialize(header.data(), header.headerVersion(), body, (short) 3));
            ByteBuffer answer = connection.readFrame();
            assertThat(answer.getInt()).as("correlation id of response header v0").isEqualTo(header.correlationId());
            ApiVersionsResponse response = ApiVersionsResponse.parse(new ByteBufferAccessor(answer), (short) 0);
            assertThat(response.data().errorCode()).isEqualTo(Errors.UNSUPPORTED_VERSION.code());
            assertThat(response.data().apiKeys()).isNotEmpty();
            assertThat(response.data().apiKeys().find(ApiKeys.API_VERSIONS.id)).isNotNull();
        }
    }

    @Test
    void aWellFormedRequestOnARawSocketGetsACorrectAnswer() throws Exception {
        short version = 12;
        MetadataRequest request = new MetadataRequest.Builder(List.of(CANARY), false).build(version);
        try (RawConnection connection = connect()) {
            MetadataResponse response = connection.send(request);
            assertThat(response.brokers()).extracting(Node::id, Node::port).contains(tuple(1, cluster.broker(1).port()));
            MetadataResponse.TopicMetadata topic = response.topicMetadata().iterator().next();
            assertThat(topic.topic()).isEqualTo(CANARY);
            assertThat(topic.error()).isEqualTo(Errors.NONE);
            assertThat(topic.partitionMetadata()).singleElement().satisfies(p -> {
                assertThat(p.partition()).isZero();
                assertThat(p.leaderId).contains(1);
            });
        }
    }

    @Test
    void aRecordLargerThanMaxMessageBytesFailsWithRecordTooLarge() {
        Map<String, Object> config = cluster.producerConfig();
        config.put("max.request.size", Integer.toString(5 * 1024 * 1024));
        String twoMebibytes = "x".repeat(2 * 1024 * 1024);
        try (KafkaProducer<String, String> big = new KafkaProducer<>(config)) {
            assertThatThrownBy(() -> big.send(new ProducerRecord<>(TARGET, twoMebibytes)).get())
                    .isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(RecordTooLargeException.class);
        }
    }

    @Test
    void aBatchWithABadCrcIsAnsweredWithCorruptMessage() throws Exception {
        MemoryRecords records = MemoryRecords.withRecords(Compression.NONE,
                new SimpleRecord("key".getBytes(StandardCharsets.UTF_8), "value-to-corrupt".getBytes(StandardCharsets.UTF_8)));
        ByteBuffer bytes = records.buffer().duplicate();
        int inValue = bytes.limit() - 2; // the last byte of the value; the very last byte is the header count
        bytes.put(inValue, (byte) (bytes.get(inValue) ^ 0x01));
        ProduceRequestData data = produceData(MemoryRecords.readableRecords(bytes));
        short version = 11;
        ProduceRequest request = ProduceRequest.builder(data).build(version);
        try (RawConnection connection = connect()) {
            ProduceResponse response = connection.send(request);
            assertThat(onlyPartition(response).errorCode()).isEqualTo(Errors.CORRUPT_MESSAGE.code());
        }
    }

    @Test
    void aBatchOfMagicV1IsAnsweredWithInvalidRecord() throws Exception {
        MemoryRecordsBuilder builder = MemoryRecords.builder(ByteBuffer.allocate(1024), RecordBatch.MAGIC_VALUE_V1,
                Compression.NONE, TimestampType.CREATE_TIME, 0L);
        builder.append(System.currentTimeMillis(), "key".getBytes(StandardCharsets.UTF_8), "old".getBytes(StandardCharsets.UTF_8));
        ProduceRequestData data = produceData(builder.build());
        short version = 11;
        try (RawConnection connection = connect()) {
            RequestHeader header = connection.nextHeader(ApiKeys.PRODUCE, version);
            // ProduceRequest.Builder refuses magic v1 on the client side, so the data is serialized as it stands.
            connection.writeFrame(RequestUtils.serialize(header.data(), header.headerVersion(), data, version));
            ProduceResponse response = connection.receive(header);
            assertThat(onlyPartition(response).errorCode()).isEqualTo(Errors.INVALID_RECORD.code());
        }
    }

    private static ProduceRequestData produceData(MemoryRecords records) {
        ProduceRequestData.TopicProduceData topic = new ProduceRequestData.TopicProduceData().setName(TARGET);
        topic.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(records));
        ProduceRequestData data = new ProduceRequestData().setAcks((short) 1).setTimeoutMs(10_000);
        data.topicData().add(topic);
        return data;
    }

    /** The answer for the only partition of a produce request; the connection stayed open to carry it. */
    private static PartitionProduceResponse onlyPartition(ProduceResponse response) {
        return response.data().responses().iterator().next().partitionResponses().get(0);
    }

    private static RawConnection connect() throws IOException {
        return RawConnection.connect(cluster.broker(1));
    }

    private static void awaitClosedByBroker(RawConnection connection) {
        awaiting().until(connection::closedByPeer);
    }

    /** Awaitility would otherwise swap in its own default uncaught-exception handler while it waits. */
    private static ConditionFactory awaiting() {
        return await().atMost(Duration.ofSeconds(10)).dontCatchUncaughtExceptions();
    }
}
