package dev.samsa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
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
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MemoryRecordsBuilder;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.record.SimpleRecord;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.RequestUtils;
import org.apache.kafka.common.requests.ResponseHeader;
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
    private static final AtomicInteger CORRELATION_IDS = new AtomicInteger(1);
    private static final List<String> UNCAUGHT = new CopyOnWriteArrayList<>();

    private static Thread.UncaughtExceptionHandler previousHandler;
    private static KafkaCluster cluster;
    private static KafkaProducer<String, String> canary;
    private static long lastCanaryOffset = -1;

    @BeforeAll
    static void start() {
        previousHandler = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler((thread, e) -> UNCAUGHT.add(thread.getName() + ": " + e));
        cluster = KafkaCluster.builder().seed(11).topic(CANARY, 1, 1).topic(TARGET, 1, 1).start();
        canary = new KafkaProducer<>(cluster.producerConfig());
    }

    @AfterAll
    static void stop() {
        try {
            if (canary != null) {
                canary.close(Duration.ofSeconds(10));
            }
            if (cluster != null) {
                cluster.close();
            }
            assertThat(UNCAUGHT).as("uncaught exceptions in any thread").isEmpty();
        } finally {
            Thread.setDefaultUncaughtExceptionHandler(previousHandler);
        }
    }

    @BeforeEach
    @AfterEach
    void theCanaryProducerStillWorks() throws Exception {
        long offset = canary.send(new ProducerRecord<>(CANARY, "still alive")).get().offset();
        assertThat(offset).isGreaterThan(lastCanaryOffset);
        lastCanaryOffset = offset;
    }

    @Test
    void garbageWithAnUnknownApiKeyClosesThatConnection() throws Exception {
        byte[] garbage = new byte[20];
        new Random(42).nextBytes(garbage);
        garbage[0] = 0x7F; // api key 0x7FFF: unknown
        garbage[1] = (byte) 0xFF;
        try (Socket socket = rawSocket()) {
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            out.writeInt(garbage.length);
            out.write(garbage);
            out.flush();
            awaitClosedByBroker(socket);
        }
    }

    @Test
    void aTwoGibibyteLengthPrefixClosesThatConnectionWithoutAllocatingIt() throws Exception {
        try (Socket socket = rawSocket()) {
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            out.writeInt(0x7FFFFFFF);
            out.flush();
            awaitClosedByBroker(socket);
        }
    }

    @Test
    void aNegativeLengthPrefixClosesThatConnection() throws Exception {
        try (Socket socket = rawSocket()) {
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            out.writeInt(-1);
            out.flush();
            awaitClosedByBroker(socket);
        }
    }

    @Test
    void aFrameCutShortClosesThatConnection() throws Exception {
        try (Socket socket = rawSocket()) {
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            out.writeInt(100);
            out.write(new byte[10]);
            out.flush();
            socket.shutdownOutput();
            awaitClosedByBroker(socket);
        }
    }

    @Test
    void anUnsupportedVersionOfAKnownApiClosesThatConnection() throws Exception {
        RequestHeader header = new RequestHeader(ApiKeys.METADATA, (short) 99, "bad-input-test", CORRELATION_IDS.getAndIncrement());
        ByteBuffer frame = RequestUtils.serialize(header.data(), header.headerVersion(), new MetadataRequestData(), (short) 12);
        try (Socket socket = rawSocket()) {
            writeFrame(socket, frame);
            awaitClosedByBroker(socket);
        }
    }

    @Test
    void aBodyThatDoesNotParseClosesThatConnection() throws Exception {
        RequestHeader header = new RequestHeader(ApiKeys.METADATA, (short) 12, "bad-input-test", CORRELATION_IDS.getAndIncrement());
        ByteBuffer headerOnly = RequestUtils.serialize(header.data(), header.headerVersion(), new MetadataRequestData(), (short) 12);
        ByteBuffer truncated = ByteBuffer.wrap(new byte[header.size() + 1]);
        truncated.put(headerOnly.array(), headerOnly.arrayOffset(), header.size()).put((byte) 0x7F).flip();
        try (Socket socket = rawSocket()) {
            writeFrame(socket, truncated);
            awaitClosedByBroker(socket);
        }
    }

    @Test
    void anApiVersionsRequestOfAnUnknownVersionIsAnsweredWithUnsupportedVersionAndTheApiList() throws Exception {
        int correlationId = CORRELATION_IDS.getAndIncrement();
        RequestHeader header = new RequestHeader(ApiKeys.API_VERSIONS, (short) 127, "bad-input-test", correlationId);
        ApiVersionsRequestData body = new ApiVersionsRequestData().setClientSoftwareName("bad-input-test")
                .setClientSoftwareVersion("1.0");
        try (Socket socket = rawSocket()) {
            writeFrame(socket, RequestUtils.serialize(header.data(), header.headerVersion(), body, (short) 3));
            ByteBuffer answer = readFrame(socket);
            assertThat(answer.getInt()).as("correlation id of response header v0").isEqualTo(correlationId);
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
        int correlationId = CORRELATION_IDS.getAndIncrement();
        RequestHeader header = new RequestHeader(ApiKeys.METADATA, version, "bad-input-test", correlationId);
        try (Socket socket = rawSocket()) {
            writeFrame(socket, request.serializeWithHeader(header));
            MetadataResponse response = (MetadataResponse) readResponse(socket, header);
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
        RequestHeader header = new RequestHeader(ApiKeys.PRODUCE, version, "bad-input-test", CORRELATION_IDS.getAndIncrement());
        assertThat(produceOverRawSocket(request.serializeWithHeader(header), header).errorCode())
                .isEqualTo(Errors.CORRUPT_MESSAGE.code());
    }

    @Test
    void aBatchOfMagicV1IsAnsweredWithInvalidRecord() throws Exception {
        MemoryRecordsBuilder builder = MemoryRecords.builder(ByteBuffer.allocate(1024), RecordBatch.MAGIC_VALUE_V1,
                Compression.NONE, TimestampType.CREATE_TIME, 0L);
        builder.append(System.currentTimeMillis(), "key".getBytes(StandardCharsets.UTF_8), "old".getBytes(StandardCharsets.UTF_8));
        ProduceRequestData data = produceData(builder.build());
        short version = 11;
        RequestHeader header = new RequestHeader(ApiKeys.PRODUCE, version, "bad-input-test", CORRELATION_IDS.getAndIncrement());
        // ProduceRequest.Builder refuses magic v1 on the client side, so the data is serialized as it stands.
        ByteBuffer frame = RequestUtils.serialize(header.data(), header.headerVersion(), data, version);
        assertThat(produceOverRawSocket(frame, header).errorCode()).isEqualTo(Errors.INVALID_RECORD.code());
    }

    private static ProduceRequestData produceData(MemoryRecords records) {
        ProduceRequestData.TopicProduceData topic = new ProduceRequestData.TopicProduceData().setName(TARGET);
        topic.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(records));
        ProduceRequestData data = new ProduceRequestData().setAcks((short) 1).setTimeoutMs(10_000);
        data.topicData().add(topic);
        return data;
    }

    /** Sends one produce request and returns the answer for the only partition; the connection must stay open. */
    private static PartitionProduceResponse produceOverRawSocket(ByteBuffer frame, RequestHeader header) throws IOException {
        try (Socket socket = rawSocket()) {
            writeFrame(socket, frame);
            ProduceResponse response = (ProduceResponse) readResponse(socket, header);
            return response.data().responses().iterator().next().partitionResponses().get(0);
        }
    }

    private static Socket rawSocket() throws IOException {
        Socket socket = new Socket("127.0.0.1", cluster.broker(1).port());
        socket.setSoTimeout(10_000);
        return socket;
    }

    private static void writeFrame(Socket socket, ByteBuffer payload) throws IOException {
        DataOutputStream out = new DataOutputStream(socket.getOutputStream());
        out.writeInt(payload.remaining());
        out.write(payload.array(), payload.arrayOffset() + payload.position(), payload.remaining());
        out.flush();
    }

    /** One whole response frame, its 4-byte size stripped. */
    private static ByteBuffer readFrame(Socket socket) throws IOException {
        DataInputStream in = new DataInputStream(socket.getInputStream());
        byte[] frame = new byte[in.readInt()];
        in.readFully(frame);
        return ByteBuffer.wrap(frame);
    }

    private static AbstractResponse readResponse(Socket socket, RequestHeader request) throws IOException {
        ByteBuffer frame = readFrame(socket);
        short version = request.apiVersion();
        ResponseHeader header = ResponseHeader.parse(frame, request.apiKey().responseHeaderVersion(version));
        assertThat(header.correlationId()).isEqualTo(request.correlationId());
        return AbstractResponse.parseResponse(request.apiKey(), new ByteBufferAccessor(frame), version);
    }

    private static void awaitClosedByBroker(Socket socket) throws IOException {
        socket.setSoTimeout(100);
        awaiting().until(() -> closedByPeer(socket));
    }

    /** True once the broker closed the socket; a byte of answer instead is a failure, silence means "not yet". */
    private static boolean closedByPeer(Socket socket) {
        try {
            int b = socket.getInputStream().read();
            if (b >= 0) {
                throw new AssertionError("The broker answered (first byte " + b + ") instead of closing the connection");
            }
            return true;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true; // reset by the broker
        }
    }

    /** Awaitility would otherwise swap in its own default uncaught-exception handler while it waits. */
    private static ConditionFactory awaiting() {
        return await().atMost(Duration.ofSeconds(10)).dontCatchUncaughtExceptions();
    }
}
