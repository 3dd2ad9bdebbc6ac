package dev.samsa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.UnknownServerException;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.RequestUtils;
import java.util.HexFormat;
import java.util.List;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import java.util.Arrays;
import java.util.Optional;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.requests.ListOffsetsResponse;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.utils.internals.Crc32C;
import org.apache.kafka.common.requests.CreateTopicsRequest;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.FindCoordinatorResponse;
import org.apache.kafka.common.requests.JoinGroupRequest;
import org.apache.kafka.common.requests.JoinGroupResponse;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsRequestData.CreatePartitionsTopic;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.CreatePartitionsRequest;
import org.apache.kafka.common.requests.CreatePartitionsResponse;
import org.apache.kafka.common.requests.CreateTopicsResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The reproducers of a wire-protocol fuzzer, each sent as its frame on a fresh connection to a 3-broker cluster and
 * answered as Kafka answers it. A real producer on its own connections keeps producing before and after every case,
 * no thread of the JVM dies of an uncaught exception, and the cluster records no internal error unless the case
 * provokes one on purpose.
 */
class HostileInputTest {

    private static final String CANARY = "hostile-canary";

    private static KafkaCluster cluster;
    private static CanaryCluster canary;
    private static int expectedInternalErrors;

    @BeforeAll
    static void start() {
        canary = new CanaryCluster(KafkaCluster.builder().brokers(3).seed(18).topic(CANARY, 1, 3), CANARY);
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
    void theCanaryProducerStillWorksAndNothingFailedInside() throws Exception {
        canary.assertStillProduces();
        assertThat(cluster.internalErrors()).as("internal errors").hasSize(expectedInternalErrors);
    }

    /** B1: 2^31-1 partitions is refused in milliseconds, before any replica is placed. */
    @Test
    void createTopicsWithTwoBillionPartitionsIsAPolicyViolation() throws Exception {
        CreateTopicsResponse response = sendHex(1,
                "00130002000010920008667a2d726570726f000000010007667a2d687567657fffffff000100000000000000000000138800");
        CreatableTopicResult result = response.data().topics().find("fz-huge");
        assertThat(result.errorCode()).isEqualTo(Errors.POLICY_VIOLATION.code());
        assertThat(result.errorMessage()).isEqualTo("Excessively large number of partitions per request.");
        assertThat(topicNames()).doesNotContain("fz-huge");
    }

    @Test
    void createPartitionsBeyondTenThousandIsAPolicyViolation() throws Exception {
        cluster.createTopic("grow-me", 1, 1);
        CreatePartitionsRequestData data = new CreatePartitionsRequestData().setTimeoutMs(5_000);
        data.topics().add(new CreatePartitionsTopic().setName("grow-me").setCount(10_002));
        try (RawConnection connection = RawConnection.connect(cluster.broker(1))) {
            CreatePartitionsResponse response = connection.send(new CreatePartitionsRequest.Builder(data).build((short) 3));
            assertThat(response.data().results()).singleElement().satisfies(r -> {
                assertThat(r.errorCode()).isEqualTo(Errors.POLICY_VIOLATION.code());
                assertThat(r.errorMessage()).isEqualTo("Excessively large number of partitions per request.");
            });
        }
    }

    /** A1: the Metadata answer goes out although the acks=0 Produce behind it on the connection sends nothing. */
    @Test
    void aMetadataAnswerFollowedByAnAcksZeroProduceIsFlushed() throws Exception {
        int leader = cluster.partition(CANARY, 0).leader();
        for (int i = 0; i < 20; i++) {
            try (RawConnection connection = RawConnection.connect(cluster.broker(leader))) {
                MetadataRequestData metadata = new MetadataRequestData();
                metadata.topics().add(new MetadataRequestData.MetadataRequestTopic().setName(CANARY));
                RequestHeader metadataHeader = connection.nextHeader(ApiKeys.METADATA, (short) 12);
                ProduceRequestData produce = new ProduceRequestData().setAcks((short) 0).setTimeoutMs(5_000);
                produce.topicData().add(new ProduceRequestData.TopicProduceData().setName(CANARY).setPartitionData(List.of(
                        new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(MemoryRecords.withRecords(
                                Compression.NONE, new SimpleRecord("acks=0".getBytes(StandardCharsets.UTF_8)))))));
                RequestHeader produceHeader = connection.nextHeader(ApiKeys.PRODUCE, (short) 11);
                connection.writeFrame(RequestUtils.serialize(metadataHeader.data(), metadataHeader.headerVersion(), metadata, (short) 12));
                connection.writeFrame(RequestUtils.serialize(produceHeader.data(), produceHeader.headerVersion(), produce, (short) 11));
                MetadataResponse response = connection.receive(metadataHeader);
                assertThat(response.topicMetadata()).singleElement().extracting(MetadataResponse.TopicMetadata::error)
                        .isEqualTo(Errors.NONE);
            }
        }
    }

    /** A1 with a real client: acks=0 while metadata refreshes all the time; no request times out, so none closes. */
    @Test
    void anAcksZeroProducerSendsOneHundredThousandRecordsWhileItsMetadataRefreshes() throws Exception {
        cluster.createTopic("acks-zero", 3, 1);
        Map<String, Object> config = cluster.producerConfig();
        config.put("acks", "0");
        config.put("metadata.max.age.ms", "50");
        config.put("request.timeout.ms", "2000");
        config.put("linger.ms", "0");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
            for (int i = 0; i < 100_000; i++) {
                producer.send(new ProducerRecord<>("acks-zero", Integer.toString(i)));
            }
            producer.flush();
            // Refreshes need answers: one more topic's metadata must arrive after the burst.
            assertThat(producer.partitionsFor(CANARY)).hasSize(1);
            assertThat(metric(producer, "connection-close-total")).as("connections closed by timed-out requests").isZero();
        }
    }

    /**
     * Issue 8: a failure the broker did not expect, on a connection's reader thread, answers the request with
     * UNKNOWN_SERVER_ERROR at once and is kept in {@link KafkaCluster#internalErrors()}; the connection and the
     * cluster go on serving.
     */
    @Test
    void anUnexpectedErrorOnAConnectionThreadFailsTheClientAtOnceAndIsRecorded() throws Exception {
        NoSuchMethodError linkage = new NoSuchMethodError("simulated: a method the broker was built against is missing");
        cluster.faults().failNextUnexpectedly(Api.PRODUCE, linkage);
        int leader = cluster.partition(CANARY, 0).leader();
        long started = System.nanoTime();
        assertThatThrownBy(() -> canary.producer().send(new ProducerRecord<>(CANARY, "meets a broker bug")).get())
                .isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(UnknownServerException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - started)).as("time to fail").isLessThan(Duration.ofSeconds(5));
        expectedInternalErrors++;
        assertThat(cluster.internalErrors()).last().satisfies(e -> {
            assertThat(e.error()).isSameAs(linkage);
            assertThat(e.brokerId()).isEqualTo(leader);
            assertThat(e.thread()).endsWith("-reader");
        });
    }

    /** B3: a subscription that does not parse leaves the subscriptions unknown; the join still completes. */
    @Test
    void aJoinGroupWithAnUndecodableSubscriptionIsAnswered() throws Exception {
        String group = "undecodable-subscription";
        ByteBuffer subscription = ByteBuffer.allocate(2 + 4).putShort((short) 0).putInt(Integer.MAX_VALUE).flip();
        JoinGroupRequestData data = new JoinGroupRequestData().setGroupId(group).setMemberId("").setProtocolType("consumer")
                .setSessionTimeoutMs(10_000).setRebalanceTimeoutMs(10_000);
        data.protocols().add(new JoinGroupRequestData.JoinGroupRequestProtocol().setName("range")
                .setMetadata(Arrays.copyOf(subscription.array(), subscription.limit())));
        try (RawConnection connection = RawConnection.connect(cluster.broker(coordinatorOf(group)))) {
            JoinGroupResponse response = connection.send(new JoinGroupRequest.Builder(data).build((short) 3));
            assertThat(response.error()).isEqualTo(Errors.NONE);
            assertThat(response.data().leader()).isEqualTo(response.data().memberId());
        }
    }

    /** B9. */
    @Test
    void aJoinGroupWithAnEmptyGroupIdIsInvalidGroupId() throws Exception {
        JoinGroupRequestData data = new JoinGroupRequestData().setGroupId("").setMemberId("").setProtocolType("consumer")
                .setSessionTimeoutMs(10_000).setRebalanceTimeoutMs(10_000);
        data.protocols().add(new JoinGroupRequestData.JoinGroupRequestProtocol().setName("range").setMetadata(new byte[0]));
        try (RawConnection connection = RawConnection.connect(cluster.broker(1))) {
            JoinGroupResponse response = connection.send(new JoinGroupRequest.Builder(data).build((short) 9));
            assertThat(response.error()).isEqualTo(Errors.INVALID_GROUP_ID);
        }
    }

    /** B13: only the broker writes its internal topics. */
    @Test
    void aClientCannotProduceToConsumerOffsets() throws Exception {
        coordinatorOf("any-group"); // creates __consumer_offsets
        int leader = cluster.partition("__consumer_offsets", 0).leader();
        ProduceResponse response = produce(leader, "__consumer_offsets", MemoryRecords.withRecords(Compression.NONE,
                new SimpleRecord("not a group record".getBytes(StandardCharsets.UTF_8), "x".getBytes(StandardCharsets.UTF_8))));
        PartitionProduceResponse partition = onlyPartition(response);
        assertThat(partition.errorCode()).isEqualTo(Errors.INVALID_TOPIC_EXCEPTION.code());
        assertThat(partition.errorMessage()).isEqualTo("Cannot append to internal topic __consumer_offsets");
    }

    /** B6. */
    @Test
    void aTransactionalBatchWithoutTransactionalIdIsTransactionalIdAuthorizationFailed() throws Exception {
        cluster.createTopic("b6", 1, 1);
        MemoryRecords transactional = MemoryRecords.withTransactionalRecords(Compression.NONE, 1000L, (short) 0, 0,
                new SimpleRecord("t".getBytes(StandardCharsets.UTF_8)));
        ProduceResponse response = produce(cluster.partition("b6", 0).leader(), "b6", transactional);
        assertThat(onlyPartition(response).errorCode()).isEqualTo(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code());
        assertThat(cluster.partition("b6", 0).highWatermark()).isZero();
    }

    /** B7. */
    @Test
    void aBatchWhoseBaseOffsetIsNotZeroIsInvalidRecord() throws Exception {
        cluster.createTopic("b7", 1, 1);
        MemoryRecords records = MemoryRecords.withRecords(5L, Compression.NONE, new SimpleRecord("v".getBytes(StandardCharsets.UTF_8)));
        PartitionProduceResponse partition = onlyPartition(produce(cluster.partition("b7", 0).leader(), "b7", records));
        assertThat(partition.errorCode()).isEqualTo(Errors.INVALID_RECORD.code());
        assertThat(partition.errorMessage()).isEqualTo("The baseOffset of the record batch in the append to b7-0 should be 0, but it is 5");
    }

    /** B11: an unknown compression id is Kafka's UNKNOWN_SERVER_ERROR, but the client's fault: no internal error. */
    @Test
    void aBatchWithAnUnknownCompressionIdIsUnknownServerErrorWithoutInternalError() throws Exception {
        cluster.createTopic("b11", 1, 1);
        MemoryRecords records = MemoryRecords.withRecords(Compression.NONE, new SimpleRecord("v".getBytes(StandardCharsets.UTF_8)));
        ByteBuffer bytes = records.buffer().duplicate();
        bytes.putShort(ATTRIBUTES_OFFSET, (short) ((bytes.getShort(ATTRIBUTES_OFFSET) & ~0x07) | 0x07));
        recomputeCrc(bytes);
        MemoryRecords corrupted = MemoryRecords.readableRecords(bytes);
        PartitionProduceResponse partition = onlyPartition(produce(cluster.partition("b11", 0).leader(), "b11", corrupted));
        assertThat(partition.errorCode()).isEqualTo(Errors.UNKNOWN_SERVER_ERROR.code());
    }

    /** Found by WireFuzzTest: an isolation level other than 0 or 1 is Kafka's UNKNOWN_SERVER_ERROR, not ours. */
    @Test
    void anUnknownIsolationLevelIsUnknownServerErrorWithoutInternalError() throws Exception {
        FetchRequestData fetch = new FetchRequestData().setReplicaId(-1).setMaxWaitMs(0).setMinBytes(1).setMaxBytes(1 << 20)
                .setIsolationLevel((byte) -1).setSessionEpoch(-1);
        ListOffsetsRequestData listOffsets = new ListOffsetsRequestData().setReplicaId(-1).setIsolationLevel((byte) 9);
        listOffsets.topics().add(new ListOffsetsRequestData.ListOffsetsTopic().setName(CANARY).setPartitions(List.of(
                new ListOffsetsRequestData.ListOffsetsPartition().setPartitionIndex(0).setTimestamp(-1))));
        try (RawConnection connection = RawConnection.connect(cluster.broker(1))) {
            RequestHeader fetchHeader = connection.nextHeader(ApiKeys.FETCH, (short) 12);
            connection.writeFrame(RequestUtils.serialize(fetchHeader.data(), fetchHeader.headerVersion(), fetch, (short) 12));
            FetchResponse fetchResponse = connection.receive(fetchHeader);
            assertThat(fetchResponse.error()).isEqualTo(Errors.UNKNOWN_SERVER_ERROR);
            RequestHeader listHeader = connection.nextHeader(ApiKeys.LIST_OFFSETS, (short) 5);
            connection.writeFrame(RequestUtils.serialize(listHeader.data(), listHeader.headerVersion(), listOffsets, (short) 5));
            ListOffsetsResponse listResponse = connection.receive(listHeader);
            assertThat(listResponse.errorCounts()).containsOnlyKeys(Errors.UNKNOWN_SERVER_ERROR);
        }
    }

    // Found by WireFuzzTest, a partition whose records are null: NullRecordsProduceTest (Kafka 4.4 leaves it unanswered).

    /** B8: bytes after the body are ignored, as Kafka parses requests. */
    @Test
    void bytesAfterARequestBodyAreIgnoredAndTheRequestAnswered() throws Exception {
        try (RawConnection connection = RawConnection.connect(cluster.broker(1))) {
            MetadataRequestData metadata = new MetadataRequestData();
            metadata.topics().add(new MetadataRequestData.MetadataRequestTopic().setName(CANARY));
            RequestHeader header = connection.nextHeader(ApiKeys.METADATA, (short) 12);
            ByteBuffer frame = RequestUtils.serialize(header.data(), header.headerVersion(), metadata, (short) 12);
            ByteBuffer padded = ByteBuffer.allocate(frame.remaining() + 7).put(frame).put(new byte[7]).flip();
            connection.writeFrame(padded);
            MetadataResponse response = connection.receive(header);
            assertThat(response.topicMetadata()).singleElement().extracting(MetadataResponse.TopicMetadata::error)
                    .isEqualTo(Errors.NONE);
        }
    }

    /** B10: the header's tagged-field count is an unsigned varint; one that reads negative closes the connection. */
    @Test
    void aNegativeTaggedFieldCountInTheHeaderClosesTheConnection() throws Exception {
        try (RawConnection connection = RawConnection.connect(cluster.broker(1))) {
            RequestHeader header = connection.nextHeader(ApiKeys.METADATA, (short) 12);
            ByteBuffer frame = RequestUtils.serialize(header.data(), header.headerVersion(), new MetadataRequestData(), (short) 12);
            int tagCountAt = 8 + 2 + RawConnection.CLIENT_ID.length();
            assertThat(frame.get(tagCountAt)).as("no tagged fields").isZero();
            ByteBuffer bad = ByteBuffer.allocate(frame.remaining() + 4);
            bad.put(frame.duplicate().limit(tagCountAt)).put(new byte[] {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x0F})
                    .put(frame.duplicate().position(tagCountAt + 1)).flip();
            connection.writeFrame(bad);
            awaiting().until(connection::closedByPeer);
        }
    }

    /** B4: a legal name of 249 characters is created, used and deleted. */
    @Test
    void aTopicNameOf249CharactersIsCreatedAndDeleted() throws Exception {
        String name = "t".repeat(249);
        try (Admin admin = Admin.create(cluster.adminConfig())) {
            admin.createTopics(List.of(new NewTopic(name, 1, (short) 3))).all().get();
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(cluster.producerConfig())) {
                assertThat(producer.send(new ProducerRecord<>(name, "v")).get().offset()).isZero();
            }
            admin.deleteTopics(List.of(name)).all().get();
            assertThat(admin.listTopics().names().get()).doesNotContain(name);
        }
    }

    /** B5: an error message quoting a 32,767-character name is cut to fit; the answer and the connection survive. */
    @Test
    void anErrorMessageQuotingAHugeTopicNameFits() throws Exception {
        String name = "x".repeat(32_767);
        CreateTopicsRequestData data = new CreateTopicsRequestData().setTimeoutMs(5_000);
        data.topics().add(new CreateTopicsRequestData.CreatableTopic().setName(name).setNumPartitions(1).setReplicationFactor((short) 1));
        try (RawConnection connection = RawConnection.connect(cluster.broker(1))) {
            for (short version : new short[] {4, 7}) {
                CreateTopicsResponse response = connection.send(new CreateTopicsRequest.Builder(data).build(version));
                CreatableTopicResult result = response.data().topics().find(name);
                assertThat(result.errorCode()).isEqualTo(Errors.INVALID_TOPIC_EXCEPTION.code());
                assertThat(result.errorMessage()).hasSizeLessThan(1_100).startsWith("Topic name is invalid");
            }
        }
    }

    /** A3: a long-poll on a topic deleted during the wait is answered at once, not at max.wait.ms. */
    @Test
    void aLongPollOnATopicDeletedDuringTheWaitIsAnsweredAtOnce() throws Exception {
        cluster.createTopic("a3", 1, 1);
        int leader = cluster.partition("a3", 0).leader();
        try (RawConnection connection = RawConnection.connect(cluster.broker(leader));
             Admin admin = Admin.create(cluster.adminConfig())) {
            Uuid id = admin.describeTopics(List.of("a3")).allTopicNames().get().get("a3").topicId();
            FetchRequest fetch = FetchRequest.Builder.forConsumer((short) 16, 60_000, 1,
                    Map.of(new TopicPartition("a3", 0), new FetchRequest.PartitionData(id, 0, 0, 1 << 20, Optional.empty())))
                    .build((short) 16);
            RequestHeader header = connection.nextHeader(ApiKeys.FETCH, (short) 16);
            connection.writeFrame(fetch.serializeWithHeader(header));
            awaiting().until(() -> cluster.parkedRequests() > 0);
            long started = System.nanoTime();
            admin.deleteTopics(List.of("a3")).all().get();
            FetchResponse response = connection.receive(header);
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
            assertThat(response.data().responses()).singleElement().satisfies(t -> assertThat(t.partitions()).singleElement()
                    .satisfies(p -> assertThat(p.errorCode()).isNotEqualTo(Errors.NONE.code())));
        }
    }

    /** Where a v2 batch's CRC and the bytes it covers (attributes to the end) start. */
    static final int CRC_OFFSET = 17;
    static final int ATTRIBUTES_OFFSET = 21;

    /** Makes a batch whose fields were changed pass its CRC check, so that the broker looks further. */
    static void recomputeCrc(ByteBuffer batch) {
        int size = batch.getInt(8) + 12;
        batch.putInt(CRC_OFFSET, (int) Crc32C.compute(batch, ATTRIBUTES_OFFSET, size - ATTRIBUTES_OFFSET));
    }

    private static int coordinatorOf(String group) throws IOException {
        try (RawConnection connection = RawConnection.connect(cluster.broker(1))) {
            FindCoordinatorRequestData data = new FindCoordinatorRequestData().setKeyType((byte) 0).setKey(group);
            for (int attempt = 0; ; attempt++) {
                FindCoordinatorResponse response = connection.send(new FindCoordinatorRequest.Builder(data).build((short) 3));
                if (response.error() == Errors.NONE) {
                    return response.data().nodeId();
                }
                if (attempt > 100) {
                    throw new AssertionError("No coordinator for " + group + ": " + response.error());
                }
            }
        }
    }

    private static ProduceResponse produce(int brokerId, String topic, MemoryRecords records) throws IOException {
        ProduceRequestData data = new ProduceRequestData().setAcks((short) 1).setTimeoutMs(10_000);
        data.topicData().add(new ProduceRequestData.TopicProduceData().setName(topic).setPartitionData(List.of(
                new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(records))));
        short version = 11;
        try (RawConnection connection = RawConnection.connect(cluster.broker(brokerId))) {
            // Serialized as it stands: ProduceRequest.Builder would refuse some of these batches on the client side.
            RequestHeader header = connection.nextHeader(ApiKeys.PRODUCE, version);
            connection.writeFrame(RequestUtils.serialize(header.data(), header.headerVersion(), data, version));
            return connection.receive(header);
        }
    }

    private static PartitionProduceResponse onlyPartition(ProduceResponse response) {
        return response.data().responses().iterator().next().partitionResponses().get(0);
    }

    private static double metric(KafkaProducer<?, ?> producer, String name) {
        return producer.metrics().entrySet().stream()
                .filter(e -> e.getKey().name().equals(name) && e.getKey().group().equals("producer-metrics"))
                .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue())
                .findFirst().orElseThrow(() -> new AssertionError("no producer metric " + name));
    }

    private static java.util.Set<String> topicNames() throws Exception {
        try (org.apache.kafka.clients.admin.Admin admin = org.apache.kafka.clients.admin.Admin.create(cluster.adminConfig())) {
            return admin.listTopics().names().get();
        }
    }

    /**
     * B2: partitions that would run the process out of memory mappings (a replica holds no file descriptor, but maps
     * its log) are refused up front, naming the limit, instead of failing half-way; the cluster's public API says the
     * same.
     */
    @Test
    void partitionsBeyondTheMemoryMapLimitAreRefusedUpFront() throws Exception {
        Path limit = Path.of("/proc/sys/vm/max_map_count");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isReadable(limit), "no " + limit + " on this system");
        long max;
        try (java.io.BufferedReader reader = Files.newBufferedReader(limit)) {
            max = Long.parseLong(reader.readLine().trim());
        }
        long partitions = max / 3 + 1; // at replication factor 3, more replicas than the limit
        assertThatThrownBy(() -> cluster.createTopic("map-hungry", (int) Math.min(partitions, Integer.MAX_VALUE), 3))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("of its limit of " + max + " (vm.max_map_count)");
        if (partitions <= 10_000) {
            CreateTopicsRequestData data = new CreateTopicsRequestData().setTimeoutMs(5_000);
            data.topics().add(new CreateTopicsRequestData.CreatableTopic().setName("map-hungry")
                    .setNumPartitions((int) partitions).setReplicationFactor((short) 3));
            try (RawConnection connection = RawConnection.connect(cluster.broker(1))) {
                CreateTopicsResponse response = connection.send(new CreateTopicsRequest.Builder(data).build((short) 7));
                CreatableTopicResult result = response.data().topics().find("map-hungry");
                assertThat(result.errorCode()).isEqualTo(Errors.POLICY_VIOLATION.code());
                assertThat(result.errorMessage()).contains("(vm.max_map_count)");
            }
        }
        assertThat(topicNames()).doesNotContain("map-hungry");
    }

    /** Sends one frame given as hex (no size prefix) to broker {@code brokerId} and reads the answer. */
    private static <T extends AbstractResponse> T sendHex(int brokerId, String hex) throws IOException {
        byte[] frame = HexFormat.of().parseHex(hex);
        RequestHeader header = RequestHeader.parse(ByteBuffer.wrap(frame));
        try (RawConnection connection = RawConnection.connect(cluster.broker(brokerId))) {
            connection.writeFrame(ByteBuffer.wrap(frame));
            return connection.receive(header);
        }
    }

    static ConditionFactory awaiting() {
        return await().atMost(Duration.ofSeconds(10)).dontCatchUncaughtExceptions();
    }
}
