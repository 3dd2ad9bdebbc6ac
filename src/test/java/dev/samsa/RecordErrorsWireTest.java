package dev.samsa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.samsa.time.ClusterClock;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData.BatchIndexAndErrorMessage;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.RequestUtils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Each check Kafka's LogValidator makes record by record, read off the raw Produce answer: the partition's error code
 * and error_message and one record_errors entry (batch index, Kafka's exact words) per refused record, and nothing of
 * the batch appended. Kafka 4.4's texts: {@code LogValidator.validateKey}, {@code validateTimestamp} and
 * {@code processRecordErrors}; ReplicaManager answers the log start offset and base offset -1 (v8+ carry the errors).
 * The manual clock fixes "now", so the timestamp bounds in the messages are exact.
 */
class RecordErrorsWireTest {

    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");
    private static final long NOW = START.toEpochMilli();
    private static final short VERSION = 11;
    /** Where a v2 batch header keeps its base sequence. */
    private static final int BASE_SEQUENCE_OFFSET = 53;

    private static KafkaCluster cluster;

    @BeforeAll
    static void start() {
        cluster = KafkaCluster.builder().seed(8).clock(ClusterClock.manual(START)).start();
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    @Test
    void recordsWithoutKeyOnACompactedTopicAreEachInvalidRecordAndTheMessageShowsTheFirstThree() throws Exception {
        cluster.createTopic("keyless", 1, 1, Map.of("cleanup.policy", "compact"));
        MemoryRecords records = MemoryRecords.withRecords(Compression.NONE, record(NOW, "k", "a"), record(NOW, null, "b"),
                record(NOW, null, "c"), record(NOW, "k", "d"), record(NOW, null, "e"), record(NOW, null, "f"));
        String reason = "Compacted topic cannot accept message without key in topic partition keyless-0";

        PartitionProduceResponse answer = produce("keyless", records, VERSION);

        assertRefused(answer, Errors.INVALID_RECORD, "One or more records have been rejected due to 4 record errors in"
                + " total, and only showing the first three errors at most: [RecordError(batchIndex=1, message='" + reason
                + "'), RecordError(batchIndex=2, message='" + reason + "'), RecordError(batchIndex=4, message='" + reason + "')]");
        assertThat(answer.recordErrors()).extracting(BatchIndexAndErrorMessage::batchIndex, BatchIndexAndErrorMessage::batchIndexErrorMessage)
                .containsExactly(tuple(1, reason), tuple(2, reason), tuple(4, reason), tuple(5, reason));
        assertThat(cluster.partition("keyless", 0).logEndOffset(1)).isZero();
    }

    @Test
    void theErrorMessageGoesWholeEvenWhenALongTopicNameMakesItLongerThanAThousandCharacters() throws Exception {
        String topic = "long-" + "n".repeat(225);
        cluster.createTopic(topic, 1, 1, Map.of("cleanup.policy", "compact"));
        MemoryRecords records = MemoryRecords.withRecords(Compression.NONE, record(NOW, null, "a"), record(NOW, null, "b"),
                record(NOW, null, "c"));
        String reason = "Compacted topic cannot accept message without key in topic partition " + topic + "-0";

        PartitionProduceResponse answer = produce(topic, records, VERSION);

        String whole = "One or more records have been rejected due to 3 record errors in total, and only showing the first"
                + " three errors at most: [RecordError(batchIndex=0, message='" + reason + "'), RecordError(batchIndex=1,"
                + " message='" + reason + "'), RecordError(batchIndex=2, message='" + reason + "')]";
        assertThat(whole).hasSizeGreaterThan(1000);
        assertRefused(answer, Errors.INVALID_RECORD, whole);
    }

    @Test
    void timestampsOutOfRangeAreEachNamedAndThePartitionErrorIsInvalidTimestamp() throws Exception {
        cluster.createTopic("bounded", 1, 1, Map.of("message.timestamp.before.max.ms", "1000",
                "message.timestamp.after.max.ms", "2000"));
        MemoryRecords records = MemoryRecords.withRecords(Compression.NONE, record(NOW - 1000, "k", "at the lower bound"),
                record(NOW - 1001, "k", "too old"), record(NOW + 2001, "k", "too new"),
                record(RecordBatch.NO_TIMESTAMP, "k", "without timestamp, which Kafka does not check"),
                record(NOW + 2000, "k", "at the upper bound"));

        PartitionProduceResponse answer = produce("bounded", records, VERSION);

        assertRefused(answer, Errors.INVALID_TIMESTAMP, "One or more records have been rejected due to invalid timestamp");
        String bounds = " is out of range. The timestamp should be within [" + (NOW - 1000) + ", " + (NOW + 2000) + "]";
        assertThat(answer.recordErrors()).extracting(BatchIndexAndErrorMessage::batchIndex, BatchIndexAndErrorMessage::batchIndexErrorMessage)
                .containsExactly(tuple(1, "Timestamp " + (NOW - 1001) + " of message with offset 1" + bounds),
                        tuple(2, "Timestamp " + (NOW + 2001) + " of message with offset 2" + bounds));
        assertThat(cluster.partition("bounded", 0).logEndOffset(1)).isZero();
    }

    @Test
    void aRecordWithoutKeyIsNamedForItsKeyAloneAndOneInvalidTimestampMakesThePartitionErrorInvalidTimestamp() throws Exception {
        cluster.createTopic("compacted-bounded", 1, 1, Map.of("cleanup.policy", "compact",
                "message.timestamp.before.max.ms", "1000", "message.timestamp.after.max.ms", "1000"));
        MemoryRecords records = MemoryRecords.withRecords(Compression.NONE, record(NOW - 5000, null, "old, no key"),
                record(NOW - 5000, "k", "old"), record(NOW, null, "no key"));

        PartitionProduceResponse answer = produce("compacted-bounded", records, VERSION);

        assertRefused(answer, Errors.INVALID_TIMESTAMP, "One or more records have been rejected due to invalid timestamp");
        String noKey = "Compacted topic cannot accept message without key in topic partition compacted-bounded-0";
        assertThat(answer.recordErrors()).extracting(BatchIndexAndErrorMessage::batchIndex, BatchIndexAndErrorMessage::batchIndexErrorMessage)
                .containsExactly(tuple(0, noKey), tuple(1, "Timestamp " + (NOW - 5000) + " of message with offset 1 is out"
                        + " of range. The timestamp should be within [" + (NOW - 1000) + ", " + (NOW + 1000) + "]"),
                        tuple(2, noKey));
    }

    @Test
    void aProducersBatchMarkedLogAppendTimeHasEveryRecordRefused() throws Exception {
        cluster.createTopic("broker-time", 1, 1, Map.of("message.timestamp.type", "LogAppendTime"));
        MemoryRecordsBuilder builder = MemoryRecords.builder(ByteBuffer.allocate(1024), RecordBatch.MAGIC_VALUE_V2,
                Compression.NONE, TimestampType.LOG_APPEND_TIME, 0L, NOW - 7);
        builder.append(NOW, bytes("k"), bytes("vv"));
        builder.append(NOW, null, bytes("vvv"));

        PartitionProduceResponse answer = produce("broker-time", builder.build(), VERSION);

        assertRefused(answer, Errors.INVALID_TIMESTAMP, "One or more records have been rejected due to invalid timestamp");
        String why = ". Producer should not set timestamp type to LogAppendTime.";
        // A record of a LogAppendTime batch carries the batch's time; Kafka quotes the record as kafka-clients prints it.
        assertThat(answer.recordErrors()).extracting(BatchIndexAndErrorMessage::batchIndex, BatchIndexAndErrorMessage::batchIndexErrorMessage)
                .containsExactly(
                        tuple(0, "Invalid timestamp type in message DefaultRecord(offset=0, timestamp=" + (NOW - 7)
                                + ", key=1 bytes, value=2 bytes)" + why),
                        tuple(1, "Invalid timestamp type in message DefaultRecord(offset=1, timestamp=" + (NOW - 7)
                                + ", key=0 bytes, value=3 bytes)" + why));
    }

    @Test
    void aCompressedBatchIsReadAsKafkaReadsItInPlace() throws Exception {
        cluster.createTopic("broker-time-gzip", 1, 1, Map.of("message.timestamp.type", "LogAppendTime"));
        MemoryRecordsBuilder builder = MemoryRecords.builder(ByteBuffer.allocate(1024), RecordBatch.MAGIC_VALUE_V2,
                Compression.gzip().build(), TimestampType.LOG_APPEND_TIME, 0L, NOW);
        builder.append(NOW, bytes("key"), bytes("v"));

        PartitionProduceResponse answer = produce("broker-time-gzip", builder.build(), VERSION);

        // Kafka skips keys and values of a batch it keeps as compressed: its record prints as a PartialDefaultRecord.
        assertThat(answer.recordErrors()).extracting(BatchIndexAndErrorMessage::batchIndexErrorMessage).containsExactly(
                "Invalid timestamp type in message PartialDefaultRecord(offset=0, timestamp=" + NOW
                        + ", key=3 bytes, value=1 bytes). Producer should not set timestamp type to LogAppendTime.");
        assertThat(answer.errorCode()).isEqualTo(Errors.INVALID_TIMESTAMP.code());
    }

    @Test
    void anInvalidSequenceRefusesTheBatchAsAWholeWithoutRecordErrors() throws Exception {
        cluster.createTopic("sequences", 1, 1);
        MemoryRecords records = MemoryRecords.withIdempotentRecords(Compression.NONE, 5L, (short) 0, 0,
                record(NOW, "k", "a"), record(NOW, "k", "b"));
        ByteBuffer bytes = records.buffer().duplicate();
        bytes.putInt(BASE_SEQUENCE_OFFSET, -1);
        HostileInputTest.recomputeCrc(bytes);

        PartitionProduceResponse answer = produce("sequences", MemoryRecords.readableRecords(bytes), VERSION);

        // Kafka's LogValidator.validateBatch throws for the batch (offsets, counts, control, sequence): no record named.
        assertThat(answer.errorCode()).isEqualTo(Errors.INVALID_RECORD.code());
        assertThat(answer.recordErrors()).isEmpty();
        // Kafka sends no error_message for a refusal other than record errors; Samsa sends the exception's, Kafka's words.
        assertThat(answer.errorMessage()).satisfiesAnyOf(m -> assertThat(m).isNull(), m -> assertThat(m)
                .isEqualTo("Invalid sequence number -1 in record batch with producerId 5 in topic partition sequences-0"));
        assertThat(cluster.partition("sequences", 0).logEndOffset(1)).isZero();
    }

    @Test
    void beforeVersion8TheAnswerCarriesTheErrorCodeAlone() throws Exception {
        cluster.createTopic("keyless-v7", 1, 1, Map.of("cleanup.policy", "compact"));
        MemoryRecords records = MemoryRecords.withRecords(Compression.NONE, record(NOW, "k", "a"), record(NOW, null, "b"));

        PartitionProduceResponse answer = produce("keyless-v7", records, (short) 7);

        assertThat(answer.errorCode()).isEqualTo(Errors.INVALID_RECORD.code());
        assertThat(answer.recordErrors()).isEmpty();
        assertThat(answer.errorMessage()).isNull();
        assertThat(cluster.partition("keyless-v7", 0).logEndOffset(1)).isZero();
    }

    private static void assertRefused(PartitionProduceResponse answer, Errors error, String errorMessage) {
        assertThat(answer.errorCode()).as("error code of %s", answer).isEqualTo(error.code());
        assertThat(answer.errorMessage()).isEqualTo(errorMessage);
        assertThat(answer.baseOffset()).isEqualTo(-1);
        assertThat(answer.logStartOffset()).as("Kafka answers the log start offset for record errors").isZero();
    }

    private static SimpleRecord record(long timestamp, String key, String value) {
        return new SimpleRecord(timestamp, key == null ? null : bytes(key), bytes(value));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** The answer for the only partition; serialized as it stands, as a client could send it. */
    private static PartitionProduceResponse produce(String topic, MemoryRecords records, short version) throws IOException {
        ProduceRequestData data = new ProduceRequestData().setAcks((short) -1).setTimeoutMs(10_000);
        data.topicData().add(new ProduceRequestData.TopicProduceData().setName(topic).setPartitionData(List.of(
                new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(records))));
        try (RawConnection connection = RawConnection.connect(cluster.broker(cluster.partition(topic, 0).leader()))) {
            RequestHeader header = connection.nextHeader(ApiKeys.PRODUCE, version);
            connection.writeFrame(RequestUtils.serialize(header.data(), header.headerVersion(), data, version));
            ProduceResponse response = connection.receive(header);
            return response.data().responses().iterator().next().partitionResponses().get(0);
        }
    }
}
