package dev.samsa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.RequestUtils;
import org.apache.kafka.common.utils.internals.Crc32C;

/**
 * A wire-protocol fuzzer of our own: valid requests of every API and version the brokers advertise, built with
 * kafka-clients' message classes, then mutated (bit flips, boundary values, truncation, trailing bytes, a wrong size
 * prefix, record-batch fields with the CRC recomputed), sent to a 3-broker cluster. jqwik draws each frame from a
 * fixed seed, so a run is the same every time; each try is one batch of frames, and after every batch the oracle
 * checks that every broker still answers ApiVersions, that a real producer and consumer round-trip every record on a
 * control topic, that the cluster recorded no internal error, and that threads and file descriptors come back to
 * where they were. Every frame must get an answer or a closed connection within 5 s, except those Kafka parks
 * (acks=0 and acks=-1 produces, fetches with a wait, joins and syncs) or never answers (a produce with null records),
 * which may stay silent. A quarter of the wrong size prefixes declare a large size, up to 2 GiB: over
 * socket.request.max.bytes the connection must close; within it the fuzzer stalls after a few bytes and keeps the
 * connection open until the batch ends, so a broker that took the declared memory before the bytes came would run out
 * of heap.
 *
 * <p>The build runs {@value #TRIES} batches of {@code samsa.fuzz.frames} (default {@value #DEFAULT_FRAMES}) frames. A
 * long run, with figures printed at the end:
 *
 * <pre>
 * mvn -B -o test -Dtest=WireFuzzTest -Dsamsa.fuzz.frames=100000 -Dsamsa.fuzz.seed=1
 * </pre>
 * ({@value #TRIES} x 100,000 = 1,000,000 frames; {@code samsa.fuzz.seed} varies the frames from the build's.)
 * {@code -Dsamsa.fuzz.frames=4500} is the 45,000-frame run of issue 26, which passes, with no stack trace logged,
 * with the forked JVM's {@code -Xmx2g} replaced by {@code -Xmx512m}.
 */
class WireFuzzTest {

    static final int TRIES = 10;
    static final int DEFAULT_FRAMES = 150;
    private static final int FRAMES = Integer.getInteger("samsa.fuzz.frames", DEFAULT_FRAMES);
    private static final long SALT = Long.getLong("samsa.fuzz.seed", 0L);
    private static final String CONTROL = "fuzz-control";
    private static final String TARGET = "fz-target";
    private static final Duration ANSWER_WITHIN = Duration.ofSeconds(5);
    private static final int PARK_WAIT_MS = 100;

    private static KafkaCluster cluster;
    private static Admin admin;
    private static KafkaProducer<String, String> producer;
    private static KafkaConsumer<String, String> consumer;
    private static final Map<ApiKeys, short[]> ADVERTISED = new EnumMap<>(ApiKeys.class);
    private static final List<ApiKeys> APIS = new ArrayList<>();
    private static Uuid targetId;
    private static long baselineThreads;
    private static long baselineFds;
    private static long framesSent;
    private static long startedNanos;
    private static final Map<String, Long> OUTCOMES = new java.util.TreeMap<>();
    private static final List<String> HEAP_AFTER_GC = new ArrayList<>();
    private static final FuzzConnection[] CONNECTIONS = new FuzzConnection[3];
    /** Connections left inside a frame that declared a large size; the oracle closes them. */
    private static final List<FuzzConnection> STALLED = new ArrayList<>();
    /** socket.request.max.bytes, Kafka's default, which the fuzz's cluster keeps. */
    private static final int MAX_REQUEST_BYTES = 104_857_600;
    private static final int[] LARGE_SIZES = {1 << 20, 64 << 20, MAX_REQUEST_BYTES, MAX_REQUEST_BYTES + 1, 1 << 30,
            Integer.MAX_VALUE, -1, Integer.MIN_VALUE};

    enum Mutation { NONE, BIT_FLIP, BOUNDARY, TRUNCATE, TRAILING, SIZE_PREFIX, BATCH_FIELD }

    /** One frame, as jqwik draws it: which API, which of its versions, which mutation where, and content. */
    record Frame(int api, int version, Mutation mutation, int where, int what, long content) {
    }

    @BeforeContainer
    static void start() throws Exception {
        cluster = KafkaCluster.builder().brokers(3).seed(18)
                .brokerConfig("auto.create.topics.enable", "false")
                .brokerConfig("offsets.topic.num.partitions", "3")
                .topic(CONTROL, 3, 3)
                .topic(TARGET, 3, 3)
                .start();
        admin = Admin.create(cluster.adminConfig());
        Map<String, Object> producerConfig = cluster.producerConfig();
        producerConfig.put("acks", "all");
        producer = new KafkaProducer<>(producerConfig);
        consumer = new KafkaConsumer<>(cluster.consumerConfig(null));
        targetId = admin.describeTopics(List.of(TARGET)).allTopicNames().get().get(TARGET).topicId();
        try (RawConnection connection = RawConnection.connect(cluster.broker(1))) {
            ApiVersionsResponse versions = connection.send(new ApiVersionsRequest.Builder().build((short) 3));
            for (ApiVersion v : versions.data().apiKeys()) {
                ApiKeys key = ApiKeys.forId(v.apiKey());
                ADVERTISED.put(key, new short[] {v.minVersion(), v.maxVersion()});
                APIS.add(key);
            }
        }
        // A first round trip so that the baseline counts the control clients' own threads and connections.
        roundTrip(0);
        baselineThreads = busyThreads();
        baselineFds = openFileDescriptors();
        startedNanos = System.nanoTime();
    }

    @AfterContainer
    static void stop() {
        if (startedNanos != 0) {
            report();
        }
        for (FuzzConnection c : CONNECTIONS) {
            if (c != null) {
                c.close();
            }
        }
        STALLED.forEach(FuzzConnection::close);
        if (consumer != null) {
            consumer.close(Duration.ofSeconds(5));
        }
        if (producer != null) {
            producer.close(Duration.ofSeconds(5));
        }
        if (admin != null) {
            admin.close(Duration.ofSeconds(5));
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    private static void report() {
        double seconds = (System.nanoTime() - startedNanos) / 1e9;
        System.out.printf("WireFuzzTest: %d frames in %.1f s (%.0f frames/s, oracle included); outcomes %s; threads %d -> %d;"
                        + " open files %d -> %d; heap after GC per batch (MiB) %s%n",
                framesSent, seconds, framesSent / seconds, OUTCOMES, baselineThreads,
                busyThreads(), baselineFds, openFileDescriptors(), HEAP_AFTER_GC);
    }

    @Property(tries = TRIES, seed = "20261201", shrinking = ShrinkingMode.OFF)
    void afterEveryBatchTheClusterIsHealthy(@ForAll("batches") List<Frame> batch) throws Exception {
        List<String> problems = new ArrayList<>();
        for (Frame frame : batch) {
            String problem = send(frame);
            if (problem != null) {
                problems.add(problem);
            }
        }
        assertThat(problems).as("frames not answered as Kafka would (answer, or close, within %s)", ANSWER_WITHIN).isEmpty();
        oracle();
    }

    @Provide
    Arbitrary<List<Frame>> batches() {
        Arbitrary<Mutation> mutation = Arbitraries.frequencyOf(
                Tuple.of(25, Arbitraries.just(Mutation.NONE)),
                Tuple.of(25, Arbitraries.just(Mutation.BIT_FLIP)),
                Tuple.of(15, Arbitraries.just(Mutation.BOUNDARY)),
                Tuple.of(10, Arbitraries.just(Mutation.TRUNCATE)),
                Tuple.of(10, Arbitraries.just(Mutation.TRAILING)),
                Tuple.of(3, Arbitraries.just(Mutation.SIZE_PREFIX)),
                Tuple.of(12, Arbitraries.just(Mutation.BATCH_FIELD)));
        Arbitrary<Frame> frame = Combinators.combine(
                Arbitraries.integers().between(0, 1_000_000),
                Arbitraries.integers().between(0, 1_000_000),
                mutation,
                Arbitraries.integers().between(0, Integer.MAX_VALUE),
                Arbitraries.integers(),
                Arbitraries.longs()).as(Frame::new);
        return frame.list().ofSize(FRAMES);
    }

    // ---- one frame

    /** Sends one frame to one broker; null when it was answered as Kafka would, else what went wrong. */
    private static String send(Frame frame) throws IOException {
        ApiKeys api = APIS.get(frame.api() % APIS.size());
        short[] range = ADVERTISED.get(api);
        short version = (short) (range[0] + frame.version() % (range[1] - range[0] + 1));
        Random random = new Random(frame.content() ^ SALT);
        int correlationId = random.nextInt(Integer.MAX_VALUE);
        byte[] bytes = build(api, version, correlationId, frame, random);
        if (bytes == null) {
            count("unbuildable");
            return null;
        }
        bytes = mutate(bytes, frame, random);
        framesSent++;
        int broker = (int) (Math.floorMod(frame.content(), 3L));
        FuzzConnection connection = CONNECTIONS[broker];
        if (connection == null || connection.closed) {
            connection = CONNECTIONS[broker] = new FuzzConnection(cluster.broker(broker + 1).port());
        }
        Expectation expected = expectation(bytes);
        if (frame.mutation() == Mutation.SIZE_PREFIX && (frame.what() & 0x300) == 0) {
            // A quarter of them declare a large size, up to 2 GiB: over socket.request.max.bytes (or negative) the
            // connection closes; within it the client stalls after a few bytes, and its connection stays open until
            // the oracle, as a slow client's would, costing the broker only what has arrived.
            int declared = LARGE_SIZES[(frame.what() >>> 10) % LARGE_SIZES.length];
            connection.write(bytes, declared);
            if (declared > bytes.length && declared <= MAX_REQUEST_BYTES) {
                STALLED.add(connection);
                CONNECTIONS[broker] = null;
                count("stalled");
                return null;
            }
        } else if (frame.mutation() == Mutation.SIZE_PREFIX) {
            // A size that does not match what follows: the broker must not wait for ever on what never comes.
            connection.write(bytes, bytes.length + 1 + (frame.what() & 0xFF));
            connection.shutdownOutput();
        } else {
            connection.write(bytes, bytes.length);
        }
        String outcome = connection.awaitOutcome(expected);
        count(outcome);
        if (outcome.equals("hung") || outcome.startsWith("bad answer")) {
            return outcome + ": " + api + " v" + version + " " + frame.mutation() + " broker " + (broker + 1) + " frame "
                    + HexFormat.of().formatHex(bytes, 0, Math.min(bytes.length, 512));
        }
        return null;
    }

    private static void count(String outcome) {
        OUTCOMES.merge(outcome.startsWith("bad answer") ? "bad answer" : outcome, 1L, Long::sum);
    }

    /** What the broker may do with a frame, judged by parsing it as the broker does. */
    private record Expectation(RequestHeader header, boolean mayStaySilent) {
    }

    private static Expectation expectation(byte[] bytes) {
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        RequestHeader header;
        try {
            header = RequestHeader.parse(buffer);
        } catch (RuntimeException e) {
            return new Expectation(null, false);
        }
        try {
            AbstractRequest request = AbstractRequest.parseRequest(header.apiKey(), header.apiVersion(), new ByteBufferAccessor(buffer)).request;
            boolean parks = switch (header.apiKey()) {
                // Null records in a partition: Kafka 4.4 never answers (NullRecordsProduceTest).
                case PRODUCE -> ((ProduceRequest) request).acks() != 1 || hasNullRecords((ProduceRequest) request);
                case FETCH -> ((FetchRequest) request).maxWait() > 0;
                case JOIN_GROUP, SYNC_GROUP -> true;
                default -> false;
            };
            return new Expectation(header, parks);
        } catch (RuntimeException e) {
            return new Expectation(header, false);
        }
    }

    private static boolean hasNullRecords(ProduceRequest request) {
        return request.data().topicData().stream().flatMap(t -> t.partitionData().stream()).anyMatch(p -> p.records() == null);
    }

    private static byte[] build(ApiKeys api, short version, int correlationId, Frame frame, Random random) {
        RequestHeader header = new RequestHeader(api, version, "fuzz", correlationId);
        for (ApiMessage body : new ApiMessage[] {template(api, version, frame, random),
                ApiMessageType.fromApiKey(api.id).newRequest()}) {
            try {
                ByteBuffer buffer = RequestUtils.serialize(header.data(), header.headerVersion(), body, version);
                byte[] bytes = new byte[buffer.remaining()];
                buffer.get(bytes);
                return bytes;
            } catch (RuntimeException e) {
                // a field this version does not have: fall back to the API's default request
            }
        }
        return null;
    }

    private static final long[] BOUNDARIES = {0, 1, -1, 0x7F, 0x80, 0xFF, 0x7FFF, 0x8000, 0xFFFF, 0x7FFFFFFFL,
            0x80000000L, 0xFFFFFFFFL, Long.MAX_VALUE, Long.MIN_VALUE};

    private static byte[] mutate(byte[] bytes, Frame frame, Random random) {
        int where = frame.where() % bytes.length;
        switch (frame.mutation()) {
            case BIT_FLIP -> {
                int flips = 1 + (frame.what() & 3);
                for (int i = 0; i < flips; i++) {
                    int at = (where + random.nextInt(bytes.length)) % bytes.length;
                    bytes[at] ^= (byte) (1 << random.nextInt(8));
                }
            }
            case BOUNDARY -> {
                long value = BOUNDARIES[Math.floorMod(frame.what(), BOUNDARIES.length)];
                int width = new int[] {1, 2, 4, 8}[random.nextInt(4)];
                for (int i = 0; i < width && where + i < bytes.length; i++) {
                    bytes[where + i] = (byte) (value >>> (8 * (width - 1 - i)));
                }
            }
            case TRUNCATE -> bytes = java.util.Arrays.copyOf(bytes, where);
            case TRAILING -> {
                byte[] longer = java.util.Arrays.copyOf(bytes, bytes.length + 1 + (frame.what() & 15));
                for (int i = bytes.length; i < longer.length; i++) {
                    longer[i] = (byte) random.nextInt();
                }
                bytes = longer;
            }
            default -> {
                // NONE and SIZE_PREFIX leave the bytes; BATCH_FIELD changed the records before serialization
            }
        }
        return bytes;
    }

    // ---- valid requests, one per API, filled from the frame's own generator

    private static long joins;

    private static ApiMessage template(ApiKeys api, short version, Frame frame, Random random) {
        String topic = "fz-" + random.nextInt(8);
        String group = "fz-g-" + random.nextInt(16);
        int partition = random.nextInt(3);
        return switch (api) {
            case PRODUCE -> {
                ProduceRequestData data = new ProduceRequestData().setAcks(new short[] {1, 1, 1, -1, 0}[random.nextInt(5)])
                        .setTimeoutMs(2_000);
                ProduceRequestData.TopicProduceData t = new ProduceRequestData.TopicProduceData();
                if (version >= 13) {
                    t.setTopicId(targetId);
                } else {
                    t.setName(TARGET);
                }
                t.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(partition)
                        .setRecords(records(version, frame, random)));
                data.topicData().add(t);
                yield data;
            }
            case FETCH -> {
                FetchRequestData data = new FetchRequestData().setReplicaId(-1).setMaxWaitMs(random.nextInt(50)).setMinBytes(1)
                        .setMaxBytes(1 << 20).setIsolationLevel((byte) random.nextInt(2)).setSessionId(0).setSessionEpoch(-1);
                FetchRequestData.FetchTopic t = new FetchRequestData.FetchTopic();
                if (version >= 13) {
                    t.setTopicId(targetId);
                } else {
                    t.setTopic(TARGET);
                }
                t.partitions().add(new FetchRequestData.FetchPartition().setPartition(partition).setFetchOffset(random.nextInt(3))
                        .setPartitionMaxBytes(65_536));
                data.topics().add(t);
                yield data;
            }
            case LIST_OFFSETS -> {
                ListOffsetsRequestData data = new ListOffsetsRequestData().setReplicaId(-1);
                ListOffsetsRequestData.ListOffsetsTopic t = new ListOffsetsRequestData.ListOffsetsTopic().setName(TARGET);
                t.partitions().add(new ListOffsetsRequestData.ListOffsetsPartition().setPartitionIndex(partition)
                        .setTimestamp(-1 - random.nextInt(2)));
                data.topics().add(t);
                yield data;
            }
            case METADATA -> {
                MetadataRequestData data = new MetadataRequestData().setAllowAutoTopicCreation(false);
                data.setTopics(new ArrayList<>(List.of(new MetadataRequestData.MetadataRequestTopic().setName(TARGET),
                        new MetadataRequestData.MetadataRequestTopic().setName(topic))));
                yield data;
            }
            case OFFSET_COMMIT -> {
                OffsetCommitRequestData data = new OffsetCommitRequestData().setGroupId(group).setGenerationIdOrMemberEpoch(-1)
                        .setMemberId("");
                OffsetCommitRequestData.OffsetCommitRequestTopic t = new OffsetCommitRequestData.OffsetCommitRequestTopic().setName(TARGET);
                t.partitions().add(new OffsetCommitRequestData.OffsetCommitRequestPartition().setPartitionIndex(partition)
                        .setCommittedOffset(random.nextInt(5)).setCommittedMetadata("fz"));
                data.topics().add(t);
                yield data;
            }
            case OFFSET_FETCH -> version >= 8
                    ? new OffsetFetchRequestData().setGroups(new ArrayList<>(List.of(
                            new OffsetFetchRequestData.OffsetFetchRequestGroup().setGroupId(group).setTopics(null))))
                    : new OffsetFetchRequestData().setGroupId(group).setTopics(null);
            case FIND_COORDINATOR -> version >= 4
                    ? new FindCoordinatorRequestData().setKeyType((byte) 0).setCoordinatorKeys(new ArrayList<>(List.of(group)))
                    : new FindCoordinatorRequestData().setKey(group);
            case JOIN_GROUP -> {
                // A group of its own, from a pool too large to meet an earlier member still alive: a join into a group
                // with members parks until they rejoin (as in Kafka), which costs the fuzzer time and tests nothing.
                JoinGroupRequestData data = new JoinGroupRequestData().setGroupId("fz-j-" + (joins++ % 4096)).setMemberId("")
                        .setProtocolType("consumer").setSessionTimeoutMs(6_000).setRebalanceTimeoutMs(50);
                byte[] subscription = new byte[random.nextInt(24)];
                random.nextBytes(subscription);
                data.protocols().add(new JoinGroupRequestData.JoinGroupRequestProtocol().setName("range").setMetadata(subscription));
                yield data;
            }
            case SYNC_GROUP -> new SyncGroupRequestData().setGroupId(group).setMemberId("fz-member").setGenerationId(1);
            case HEARTBEAT -> new HeartbeatRequestData().setGroupId(group).setMemberId("fz-member").setGenerationId(1);
            case LEAVE_GROUP -> version >= 3
                    ? new LeaveGroupRequestData().setGroupId(group).setMembers(new ArrayList<>(List.of(
                            new LeaveGroupRequestData.MemberIdentity().setMemberId("fz-member"))))
                    : new LeaveGroupRequestData().setGroupId(group).setMemberId("fz-member");
            case DESCRIBE_GROUPS -> new DescribeGroupsRequestData().setGroups(new ArrayList<>(List.of(group)));
            case DELETE_GROUPS -> new DeleteGroupsRequestData().setGroupsNames(new ArrayList<>(List.of(group)));
            case CREATE_TOPICS -> {
                CreateTopicsRequestData data = new CreateTopicsRequestData().setTimeoutMs(2_000);
                data.topics().add(new CreateTopicsRequestData.CreatableTopic().setName(topic)
                        .setNumPartitions(1 + random.nextInt(3)).setReplicationFactor((short) (1 + random.nextInt(3))));
                yield data;
            }
            case DELETE_TOPICS -> version >= 6
                    ? new DeleteTopicsRequestData().setTimeoutMs(2_000).setTopics(new ArrayList<>(List.of(
                            new DeleteTopicsRequestData.DeleteTopicState().setName(topic))))
                    : new DeleteTopicsRequestData().setTimeoutMs(2_000).setTopicNames(new ArrayList<>(List.of(topic)));
            case CREATE_PARTITIONS -> {
                CreatePartitionsRequestData data = new CreatePartitionsRequestData().setTimeoutMs(2_000);
                data.topics().add(new CreatePartitionsRequestData.CreatePartitionsTopic().setName(topic).setCount(2 + random.nextInt(3)));
                yield data;
            }
            case DESCRIBE_CONFIGS -> new DescribeConfigsRequestData().setResources(new ArrayList<>(List.of(
                    new DescribeConfigsRequestData.DescribeConfigsResource().setResourceType((byte) 2).setResourceName(TARGET))));
            case DELETE_RECORDS -> {
                DeleteRecordsRequestData data = new DeleteRecordsRequestData().setTimeoutMs(2_000);
                DeleteRecordsRequestData.DeleteRecordsTopic t = new DeleteRecordsRequestData.DeleteRecordsTopic().setName(topic);
                t.partitions().add(new DeleteRecordsRequestData.DeleteRecordsPartition().setPartitionIndex(0).setOffset(0));
                data.topics().add(t);
                yield data;
            }
            case INIT_PRODUCER_ID -> new InitProducerIdRequestData().setTransactionalId(null).setTransactionTimeoutMs(60_000);
            case API_VERSIONS -> new ApiVersionsRequestData().setClientSoftwareName("fuzz").setClientSoftwareVersion("1.0");
            default -> ApiMessageType.fromApiKey(api.id).newRequest();
        };
    }

    /** A few records; for BATCH_FIELD, one field of the batch header set to a boundary value and the CRC recomputed. */
    private static MemoryRecords records(short version, Frame frame, Random random) {
        Compression compression = switch (random.nextInt(6)) {
            case 1 -> Compression.gzip().build();
            case 2 -> Compression.lz4().build();
            case 3 -> Compression.snappy().build();
            case 4 -> version >= 7 ? Compression.zstd().build() : Compression.NONE;
            default -> Compression.NONE;
        };
        SimpleRecord[] records = new SimpleRecord[1 + random.nextInt(3)];
        for (int i = 0; i < records.length; i++) {
            byte[] value = new byte[random.nextInt(64)];
            random.nextBytes(value);
            records[i] = new SimpleRecord(System.currentTimeMillis(), ("k" + i).getBytes(StandardCharsets.UTF_8), value);
        }
        MemoryRecords built = MemoryRecords.withRecords(compression, records);
        if (frame.mutation() != Mutation.BATCH_FIELD) {
            return built;
        }
        ByteBuffer batch = built.buffer().duplicate();
        // baseOffset, length, partitionLeaderEpoch, magic, attributes, lastOffsetDelta, baseTimestamp, maxTimestamp,
        // producerId, producerEpoch, baseSequence, record count, and the first record's bytes
        int[][] fields = {{0, 8}, {8, 4}, {12, 4}, {16, 1}, {21, 2}, {23, 4}, {27, 8}, {35, 8}, {43, 8}, {51, 2}, {53, 4},
                {57, 4}, {61, 4}};
        int[] field = fields[frame.where() % fields.length];
        long value = BOUNDARIES[Math.floorMod(frame.what(), BOUNDARIES.length)];
        for (int i = 0; i < field[1] && field[0] + i < batch.limit(); i++) {
            batch.put(field[0] + i, (byte) (value >>> (8 * (field[1] - 1 - i))));
        }
        batch.putInt(HostileInputTest.CRC_OFFSET, (int) Crc32C.compute(batch, HostileInputTest.ATTRIBUTES_OFFSET,
                batch.limit() - HostileInputTest.ATTRIBUTES_OFFSET));
        return MemoryRecords.readableRecords(batch);
    }

    // ---- the oracle

    private static int round;

    private static void oracle() throws Exception {
        round++;
        for (FuzzConnection c : CONNECTIONS) {
            if (c != null) {
                c.close();
            }
        }
        STALLED.forEach(FuzzConnection::close);
        STALLED.clear();
        java.util.Arrays.fill(CONNECTIONS, null);
        for (Broker broker : cluster.brokers()) {
            try (RawConnection connection = RawConnection.connect(broker)) {
                ApiVersionsResponse response = connection.send(new ApiVersionsRequest.Builder().build((short) 3));
                assertThat(response.data().errorCode()).as("ApiVersions of %s", broker).isEqualTo(Errors.NONE.code());
            }
        }
        roundTrip(round);
        assertThat(cluster.internalErrors()).as("internal errors").isEmpty();
        // The fuzz's own topics go, so that what is left to count is what leaked.
        Set<String> fuzzTopics = admin.listTopics().names().get().stream()
                .filter(t -> !t.equals(CONTROL) && !t.equals(TARGET)).collect(Collectors.toSet());
        admin.deleteTopics(fuzzTopics).all().get();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(busyThreads())
                .as("threads").isLessThanOrEqualTo(baselineThreads + 8));
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(openFileDescriptors())
                .as("open file descriptors").isLessThanOrEqualTo(baselineFds + 64));
        System.gc();
        Runtime rt = Runtime.getRuntime();
        HEAP_AFTER_GC.add(Long.toString((rt.totalMemory() - rt.freeMemory()) >> 20));
        System.out.printf("WireFuzzTest batch %d passed the oracle: %d frames so far in %.1f s; heap after GC %s MiB,"
                        + " timeline %d events kept, %d dropped%n", round, framesSent, (System.nanoTime() - startedNanos) / 1e9,
                HEAP_AFTER_GC.get(HEAP_AFTER_GC.size() - 1), cluster.events().events().size(), cluster.events().dropped());
    }

    /** Every record a real producer sends to the control topic comes back to a real consumer. */
    private static void roundTrip(int round) throws Exception {
        List<Future<RecordMetadata>> sent = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            sent.add(producer.send(new ProducerRecord<>(CONTROL, Integer.toString(i), "round-" + round + "-" + i)));
        }
        Map<TopicPartition, Long> from = new java.util.HashMap<>();
        for (Future<RecordMetadata> f : sent) {
            RecordMetadata m = f.get(30, java.util.concurrent.TimeUnit.SECONDS);
            from.merge(new TopicPartition(m.topic(), m.partition()), m.offset(), Math::min);
        }
        consumer.assign(from.keySet());
        from.forEach(consumer::seek);
        Set<String> read = new java.util.HashSet<>();
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(50))) {
                read.add(r.value());
            }
            return read.stream().filter(v -> v.startsWith("round-" + round + "-")).count() == 12;
        });
    }

    /**
     * Live threads but the idle ones of Samsa's JVM-wide pools (named {@code samsa-idle-...}), which wait some seconds
     * for work and then end by themselves: a leak is a thread still serving, and counting the idle ones made a batch
     * wait out the connection pool's 10 s.
     */
    private static long busyThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> !t.getName().startsWith("samsa-idle-")).count();
    }

    private static long openFileDescriptors() {
        return ((com.sun.management.UnixOperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getOpenFileDescriptorCount();
    }

    /** A plain socket that can wait a chosen time for one answer. */
    private static final class FuzzConnection {
        private final Socket socket;
        private final DataInputStream in;
        private final DataOutputStream out;
        boolean closed;

        FuzzConnection(int port) throws IOException {
            socket = new Socket("127.0.0.1", port);
            socket.setTcpNoDelay(true);
            in = new DataInputStream(socket.getInputStream());
            out = new DataOutputStream(socket.getOutputStream());
        }

        void write(byte[] bytes, int size) {
            try {
                out.writeInt(size);
                out.write(bytes);
                out.flush();
            } catch (IOException e) {
                close(); // the broker closed on an earlier frame; the outcome says so
            }
        }

        void shutdownOutput() {
            try {
                socket.shutdownOutput();
            } catch (IOException e) {
                close();
            }
        }

        /** "answered", "closed", "silent" (allowed), "hung", or "bad answer ..." */
        String awaitOutcome(Expectation expected) {
            if (closed) {
                return "closed";
            }
            try {
                socket.setSoTimeout(expected.mayStaySilent() ? PARK_WAIT_MS : (int) ANSWER_WITHIN.toMillis());
                byte[] answer = new byte[in.readInt()];
                in.readFully(answer);
                return checkAnswer(ByteBuffer.wrap(answer), expected.header());
            } catch (SocketTimeoutException e) {
                close();
                return expected.mayStaySilent() ? "silent" : "hung";
            } catch (EOFException e) {
                close();
                return "closed";
            } catch (IOException e) {
                close();
                return "closed";
            }
        }

        private String checkAnswer(ByteBuffer answer, RequestHeader request) {
            if (request == null) {
                close();
                return "bad answer to a frame whose header does not parse";
            }
            int correlationId = answer.getInt(0);
            if (correlationId != request.correlationId()) {
                close();
                return "bad answer: correlation id " + correlationId + " for " + request.correlationId();
            }
            if (request.apiKey() == ApiKeys.API_VERSIONS) {
                return "answered";
            }
            try {
                AbstractResponse.parseResponse(answer, request);
                return "answered";
            } catch (RuntimeException e) {
                close();
                return "bad answer that does not parse: " + e;
            }
        }

        void close() {
            closed = true;
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing is all we wanted
            }
        }
    }
}
