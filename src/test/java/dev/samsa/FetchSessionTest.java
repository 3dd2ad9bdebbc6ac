package dev.samsa;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FetchMetadata;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * Incremental fetch sessions (KIP-227) at the wire, as real Kafka keeps them ({@code kafka.server.FetchSession}):
 * a full fetch opens a session, incremental fetches carry only changes and get back only partitions with news,
 * session errors are answered at the top level with session id 0. Every fetch has maxWait 0, so nothing waits.
 */
class FetchSessionTest {

    private static final int MAX_WAIT_MS = 0;
    private static final int PARTITION_MAX_BYTES = 1024 * 1024;

    private static KafkaCluster cluster;
    private static KafkaProducer<String, String> producer;

    private RawConnection connection;
    private short version;
    private String topic;
    private Uuid topicId;
    private TopicPartition p0;
    private TopicPartition p1;

    @BeforeAll
    static void start() {
        cluster = KafkaCluster.builder().seed(31).start();
        Map<String, Object> config = cluster.producerConfig();
        config.put("acks", "all");
        producer = new KafkaProducer<>(config);
    }

    @AfterAll
    static void stop() {
        if (producer != null) {
            producer.close(Duration.ofSeconds(10));
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    /** A topic of two partitions of its own per test, its id from a Metadata request. */
    @BeforeEach
    void createTopic(TestInfo test) throws IOException {
        topic = "sessions-" + test.getTestMethod().orElseThrow().getName();
        cluster.createTopic(topic, 2, 1);
        p0 = new TopicPartition(topic, 0);
        p1 = new TopicPartition(topic, 1);
        connection = RawConnection.connect(cluster.broker(1));
        version = connection.latestVersion(ApiKeys.FETCH);
        assertThat(version).as("Fetch by topic id").isGreaterThanOrEqualTo((short) 13);
        short metadataVersion = connection.latestVersion(ApiKeys.METADATA);
        MetadataResponse metadata = connection.send(new MetadataRequest.Builder(List.of(topic), false).build(metadataVersion));
        MetadataResponse.TopicMetadata topicMetadata = metadata.topicMetadata().iterator().next();
        assertThat(topicMetadata.error()).isEqualTo(Errors.NONE);
        topicId = topicMetadata.topicId();
        assertThat(topicId).isNotNull().isNotEqualTo(Uuid.ZERO_UUID);
    }

    @AfterEach
    void disconnect() throws IOException {
        connection.close();
    }

    @Test
    void aFullFetchWithEpochZeroOpensASessionAndReturnsEveryPartition() throws Exception {
        produce(p0, "one");
        FetchResponse response = fetch(new FetchMetadata(FetchMetadata.INVALID_SESSION_ID, FetchMetadata.INITIAL_EPOCH),
                partitions(p0, 0, p1, 0), List.of());
        assertThat(response.error()).isEqualTo(Errors.NONE);
        assertThat(response.sessionId()).as("a new session").isNotEqualTo(FetchMetadata.INVALID_SESSION_ID);
        Map<TopicPartition, FetchResponseData.PartitionData> data = byPartition(response);
        assertThat(data).containsOnlyKeys(p0, p1);
        assertThat(data.values()).allSatisfy(d -> assertThat(d.errorCode()).isEqualTo(Errors.NONE.code()));
        assertThat(FetchResponse.recordsSize(data.get(p0))).isPositive();
        assertThat(data.get(p0).highWatermark()).isEqualTo(1);
        assertThat(FetchResponse.recordsSize(data.get(p1))).isZero();
        assertThat(data.get(p1).highWatermark()).isZero();
    }

    @Test
    void anIncrementalFetchReturnsOnlyThePartitionsThatChanged() throws Exception {
        int session = openSession();

        FetchResponse nothing = fetch(new FetchMetadata(session, 1), Map.of(), List.of());
        assertThat(nothing.error()).isEqualTo(Errors.NONE);
        assertThat(nothing.sessionId()).isEqualTo(session);
        assertThat(byPartition(nothing)).as("nothing changed").isEmpty();

        produce(p1, "news");
        FetchResponse news = fetch(new FetchMetadata(session, 2), Map.of(), List.of());
        assertThat(news.error()).isEqualTo(Errors.NONE);
        assertThat(news.sessionId()).isEqualTo(session);
        Map<TopicPartition, FetchResponseData.PartitionData> data = byPartition(news);
        assertThat(data).as("only the partition with records").containsOnlyKeys(p1);
        assertThat(FetchResponse.recordsSize(data.get(p1))).isPositive();
        assertThat(data.get(p1).highWatermark()).isEqualTo(1);

        // The client moves its fetch offset past the record: an update of that partition only, and nothing new.
        FetchResponse caughtUp = fetch(new FetchMetadata(session, 3), partitions(p1, 1), List.of());
        assertThat(caughtUp.error()).isEqualTo(Errors.NONE);
        assertThat(byPartition(caughtUp)).isEmpty();
    }

    @Test
    void aForgottenPartitionIsNoLongerReturned() throws Exception {
        int session = openSession();

        FetchResponse forget = fetch(new FetchMetadata(session, 1), Map.of(), List.of(idPartition(p0)));
        assertThat(forget.error()).isEqualTo(Errors.NONE);
        assertThat(forget.sessionId()).isEqualTo(session);
        assertThat(byPartition(forget)).isEmpty();

        produce(p0, "to the forgotten partition");
        produce(p1, "to the one still in the session");
        FetchResponse after = fetch(new FetchMetadata(session, 2), Map.of(), List.of());
        assertThat(after.error()).isEqualTo(Errors.NONE);
        assertThat(byPartition(after)).containsOnlyKeys(p1);
    }

    /** FetchSession.scala, {@code FetchManager.newContext}: "there are no more partitions left" closes the session. */
    @Test
    void forgettingEveryPartitionClosesTheSession() throws Exception {
        int session = openSession();

        FetchResponse forgetAll = fetch(new FetchMetadata(session, 1), Map.of(), List.of(idPartition(p0), idPartition(p1)));
        assertThat(forgetAll.error()).isEqualTo(Errors.NONE);
        assertThat(forgetAll.sessionId()).as("answered without a session").isEqualTo(FetchMetadata.INVALID_SESSION_ID);
        assertThat(byPartition(forgetAll)).isEmpty();

        FetchResponse gone = fetch(new FetchMetadata(session, 2), Map.of(), List.of());
        assertThat(gone.error()).isEqualTo(Errors.FETCH_SESSION_ID_NOT_FOUND);
    }

    @Test
    void aWrongEpochIsAnsweredWithInvalidFetchSessionEpochAndLeavesTheSessionAsItWas() throws Exception {
        int session = openSession();

        FetchResponse wrong = fetch(new FetchMetadata(session, 5), Map.of(), List.of());
        assertThat(wrong.error()).isEqualTo(Errors.INVALID_FETCH_SESSION_EPOCH);
        assertThat(wrong.sessionId()).isEqualTo(FetchMetadata.INVALID_SESSION_ID);
        assertThat(byPartition(wrong)).isEmpty();

        FetchResponse right = fetch(new FetchMetadata(session, 1), Map.of(), List.of());
        assertThat(right.error()).isEqualTo(Errors.NONE);
        assertThat(right.sessionId()).isEqualTo(session);
    }

    @Test
    void anUnknownSessionIdIsAnsweredWithFetchSessionIdNotFound() throws Exception {
        int session = openSession();
        int unknown = Integer.MAX_VALUE; // Kafka draws session ids from [1, Integer.MAX_VALUE)
        assertThat(unknown).isNotEqualTo(session);

        FetchResponse response = fetch(new FetchMetadata(unknown, 1), Map.of(), List.of());
        assertThat(response.error()).isEqualTo(Errors.FETCH_SESSION_ID_NOT_FOUND);
        assertThat(response.sessionId()).isEqualTo(FetchMetadata.INVALID_SESSION_ID);
        assertThat(byPartition(response)).isEmpty();
    }

    @Test
    void epochMinusOneWithTheSessionIdClosesTheSession() throws Exception {
        int session = openSession();

        FetchResponse close = fetch(new FetchMetadata(session, FetchMetadata.FINAL_EPOCH), partitions(p0, 0, p1, 0), List.of());
        assertThat(close.error()).isEqualTo(Errors.NONE);
        assertThat(close.sessionId()).isEqualTo(FetchMetadata.INVALID_SESSION_ID);
        assertThat(byPartition(close)).as("answered as a sessionless fetch").containsOnlyKeys(p0, p1);

        FetchResponse gone = fetch(new FetchMetadata(session, 1), Map.of(), List.of());
        assertThat(gone.error()).isEqualTo(Errors.FETCH_SESSION_ID_NOT_FOUND);
        assertThat(gone.sessionId()).isEqualTo(FetchMetadata.INVALID_SESSION_ID);
    }

    @Test
    void aSessionlessFetchIsAnsweredWithSessionIdZeroAndEveryPartition() throws Exception {
        produce(p1, "one");
        for (int i = 0; i < 2; i++) {
            FetchResponse response = fetch(FetchMetadata.LEGACY, partitions(p0, 0, p1, 0), List.of());
            assertThat(response.error()).isEqualTo(Errors.NONE);
            assertThat(response.sessionId()).isEqualTo(FetchMetadata.INVALID_SESSION_ID);
            Map<TopicPartition, FetchResponseData.PartitionData> data = byPartition(response);
            assertThat(data).as("fetch %d", i).containsOnlyKeys(p0, p1);
            assertThat(FetchResponse.recordsSize(data.get(p1))).isPositive();
        }
    }

    @Test
    void aFetchOffsetPastTheLogEndOffsetIsAnsweredWithOffsetOutOfRange() throws Exception {
        produce(p0, "one");
        produce(p0, "two");

        Map<TopicPartition, FetchResponseData.PartitionData> data = byPartition(
                fetch(FetchMetadata.LEGACY, partitions(p0, 3, p1, 0), List.of()));
        assertThat(data.get(p0).errorCode()).isEqualTo(Errors.OFFSET_OUT_OF_RANGE.code());
        assertThat(data.get(p1).errorCode()).as("the other partition is unaffected").isEqualTo(Errors.NONE.code());

        Map<TopicPartition, FetchResponseData.PartitionData> atEnd = byPartition(
                fetch(FetchMetadata.LEGACY, partitions(p0, 2), List.of()));
        assertThat(atEnd.get(p0).errorCode()).as("the log end offset itself is in range").isEqualTo(Errors.NONE.code());
        assertThat(FetchResponse.recordsSize(atEnd.get(p0))).isZero();
    }

    @Test
    void anUnknownTopicIdIsAnsweredWithUnknownTopicId() throws Exception {
        Uuid ghost = Uuid.randomUuid();
        LinkedHashMap<TopicPartition, FetchRequest.PartitionData> fetchData = partitions(p0, 0);
        fetchData.put(new TopicPartition("ghost", 0), partitionData(ghost, 0));
        FetchResponse response = fetch(new FetchMetadata(FetchMetadata.INVALID_SESSION_ID, FetchMetadata.INITIAL_EPOCH),
                fetchData, List.of());
        assertThat(response.error()).isEqualTo(Errors.NONE);

        Map<Uuid, List<FetchResponseData.PartitionData>> byTopicId = new LinkedHashMap<>();
        response.data().responses().forEach(t -> byTopicId.put(t.topicId(), t.partitions()));
        assertThat(byTopicId).containsOnlyKeys(topicId, ghost);
        assertThat(byTopicId.get(ghost)).singleElement().satisfies(p -> {
            assertThat(p.partitionIndex()).isZero();
            assertThat(p.errorCode()).isEqualTo(Errors.UNKNOWN_TOPIC_ID.code());
        });
        assertThat(byTopicId.get(topicId)).singleElement()
                .satisfies(p -> assertThat(p.errorCode()).isEqualTo(Errors.NONE.code()));
    }

    /** A full fetch of both partitions from offset 0 with epoch 0; returns the new session's id. */
    private int openSession() throws IOException {
        FetchResponse response = fetch(new FetchMetadata(FetchMetadata.INVALID_SESSION_ID, FetchMetadata.INITIAL_EPOCH),
                partitions(p0, 0, p1, 0), List.of());
        assertThat(response.error()).isEqualTo(Errors.NONE);
        assertThat(response.sessionId()).isNotEqualTo(FetchMetadata.INVALID_SESSION_ID);
        assertThat(byPartition(response)).containsOnlyKeys(p0, p1);
        return response.sessionId();
    }

    private FetchResponse fetch(FetchMetadata metadata, Map<TopicPartition, FetchRequest.PartitionData> fetchData,
                                List<TopicIdPartition> removed) throws IOException {
        FetchRequest request = FetchRequest.Builder.forConsumer(version, MAX_WAIT_MS, 1, fetchData)
                .metadata(metadata).removed(removed).replaced(List.of()).build(version);
        return connection.send(request);
    }

    /** The partitions of a response by name; fails on a topic id that is not this test's topic. */
    private Map<TopicPartition, FetchResponseData.PartitionData> byPartition(FetchResponse response) {
        Map<TopicPartition, FetchResponseData.PartitionData> out = new LinkedHashMap<>();
        for (FetchResponseData.FetchableTopicResponse t : response.data().responses()) {
            assertThat(t.topicId()).isEqualTo(topicId);
            for (FetchResponseData.PartitionData p : t.partitions()) {
                assertThat(out.put(new TopicPartition(topic, p.partitionIndex()), p)).as("partition %d twice", p.partitionIndex()).isNull();
            }
        }
        return out;
    }

    private LinkedHashMap<TopicPartition, FetchRequest.PartitionData> partitions(TopicPartition tp, long offset) {
        LinkedHashMap<TopicPartition, FetchRequest.PartitionData> data = new LinkedHashMap<>();
        data.put(tp, partitionData(topicId, offset));
        return data;
    }

    private LinkedHashMap<TopicPartition, FetchRequest.PartitionData> partitions(TopicPartition a, long offsetA,
                                                                                TopicPartition b, long offsetB) {
        LinkedHashMap<TopicPartition, FetchRequest.PartitionData> data = partitions(a, offsetA);
        data.put(b, partitionData(topicId, offsetB));
        return data;
    }

    private static FetchRequest.PartitionData partitionData(Uuid id, long offset) {
        return new FetchRequest.PartitionData(id, offset, -1L, PARTITION_MAX_BYTES, Optional.empty());
    }

    private TopicIdPartition idPartition(TopicPartition tp) {
        return new TopicIdPartition(topicId, tp);
    }

    private static void produce(TopicPartition tp, String value) throws Exception {
        producer.send(new ProducerRecord<>(tp.topic(), tp.partition(), null, value)).get();
    }
}
