package dev.samsa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.RequestUtils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A Produce whose partition carries null records (found by WireFuzzTest at v6), answered as Kafka 4.4 answers it: not
 * at all. Its KafkaApis lets null records through; ReplicaManager.handleProduceAppend reads every partition's batches
 * before appending any and fails on them, and so does ProduceRequest.getErrorResponse, so the request handler logs the
 * exception and sends nothing. With acks=0 there is no error answer to build and the connection is closed. A partition
 * Kafka does not know is answered UNKNOWN_TOPIC_OR_PARTITION before its records are read.
 */
class NullRecordsProduceTest {

    private static KafkaCluster cluster;

    @BeforeAll
    static void start() {
        cluster = KafkaCluster.builder().seed(26).topic("nulls", 2, 1).topic("served", 1, 1).start();
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    @AfterEach
    void nothingWasAppendedAndTheBrokerStillServes() throws IOException {
        assertThat(cluster.partition("nulls", 0).logEndOffset(1)).isZero();
        assertThat(cluster.partition("nulls", 1).logEndOffset(1)).isZero();
        assertThat(cluster.internalErrors()).as("the client's fault, not Samsa's").isEmpty();
        try (RawConnection connection = RawConnection.connect(cluster.broker(1))) {
            ProduceResponse answer = send(connection, request((short) 1, "served",
                    new PartitionProduceData().setIndex(0).setRecords(records())), (short) 6);
            assertThat(onlyPartition(answer).errorCode()).isEqualTo(Errors.NONE.code());
        }
    }

    @ParameterizedTest(name = "v{0}")
    @ValueSource(shorts = {6, 11})
    void aProduceWithNullRecordsIsNeverAnsweredAndAppendsNoneOfItsPartitions(short version) throws IOException {
        ProduceRequestData data = request((short) 1, "nulls", new PartitionProduceData().setIndex(0).setRecords(null),
                new PartitionProduceData().setIndex(1).setRecords(records()));
        try (RawConnection connection = RawConnection.connect(cluster.broker(1))) {
            RequestHeader header = connection.nextHeader(ApiKeys.PRODUCE, version);
            connection.writeFrame(RequestUtils.serialize(header.data(), header.headerVersion(), data, version));
            // Kafka sends nothing and keeps the connection: a byte of answer would fail closedByPeer at once.
            await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(10)).until(() -> !connection.closedByPeer());
        }
    }

    @Test
    void withAcksZeroTheConnectionIsClosed() throws IOException {
        ProduceRequestData data = request((short) 0, "nulls", new PartitionProduceData().setIndex(0).setRecords(null));
        short version = 6;
        try (RawConnection connection = RawConnection.connect(cluster.broker(1))) {
            RequestHeader header = connection.nextHeader(ApiKeys.PRODUCE, version);
            connection.writeFrame(RequestUtils.serialize(header.data(), header.headerVersion(), data, version));
            await().atMost(Duration.ofSeconds(10)).until(connection::closedByPeer);
        }
    }

    @Test
    void nullRecordsForAnUnknownPartitionAreUnknownTopicOrPartition() throws IOException {
        try (RawConnection connection = RawConnection.connect(cluster.broker(1))) {
            ProduceResponse answer = send(connection, request((short) 1, "nulls",
                    new PartitionProduceData().setIndex(7).setRecords(null)), (short) 6);
            assertThat(onlyPartition(answer).errorCode()).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        }
    }

    private static ProduceRequestData request(short acks, String topic, PartitionProduceData... partitions) {
        ProduceRequestData data = new ProduceRequestData().setAcks(acks).setTimeoutMs(10_000);
        data.topicData().add(new ProduceRequestData.TopicProduceData().setName(topic).setPartitionData(List.of(partitions)));
        return data;
    }

    private static MemoryRecords records() {
        return MemoryRecords.withRecords(Compression.NONE, new SimpleRecord("v".getBytes(StandardCharsets.UTF_8)));
    }

    /** Serialized as it stands: ProduceRequest.Builder would refuse null records on the client side. */
    private static ProduceResponse send(RawConnection connection, ProduceRequestData data, short version) throws IOException {
        RequestHeader header = connection.nextHeader(ApiKeys.PRODUCE, version);
        connection.writeFrame(RequestUtils.serialize(header.data(), header.headerVersion(), data, version));
        return connection.receive(header);
    }

    private static PartitionProduceResponse onlyPartition(ProduceResponse response) {
        return response.data().responses().iterator().next().partitionResponses().get(0);
    }
}
