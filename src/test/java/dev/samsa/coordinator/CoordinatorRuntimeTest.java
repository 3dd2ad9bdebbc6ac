package dev.samsa.coordinator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.samsa.event.CoordinatorRecordSkipped;
import dev.samsa.event.TimedEvent;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.CoordinatorLoadInProgressException;
import org.apache.kafka.common.errors.CoordinatorNotAvailableException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.NotCoordinatorException;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.utils.Utils;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The coordinator runtime on the domain alone, with a key-value shard: routing, loading when a partition gets a leader,
 * unloading when it loses it, pure reads, and writes answered once replicated. Topic "__kv" has partition 0 on brokers
 * 1 (leader) and 2, partition 1 on 2 (leader) and 1.
 */
class CoordinatorRuntimeTest {

    private static final String TOPIC = "__kv";
    private static final TopicPartition P0 = new TopicPartition(TOPIC, 0);

    @TempDir
    Path dir;
    private CoordinatorFixture cluster;
    private final List<String> lifecycle = new ArrayList<>();
    /** Whether the topic could be looked up when each shard loaded: a creation that fails must leave no shard behind. */
    private final List<Boolean> topicPublishedAtLoad = new ArrayList<>();

    /** A key-value store: a record sets key to value; a record whose value is "!" does not decode. */
    static final class KeyValueShard implements CoordinatorShard {
        final int partition;
        final int brokerId;
        final Map<String, String> values = new LinkedHashMap<>();
        final List<Long> replayedOffsets = new ArrayList<>();
        int loadedReplayed = -1;
        int loadedSkipped = -1;

        KeyValueShard(int partition, int brokerId) {
            this.partition = partition;
            this.brokerId = brokerId;
        }

        @Override
        public int partition() {
            return partition;
        }

        @Override
        public int brokerId() {
            return brokerId;
        }

        @Override
        public void replay(long offset, Record record) {
            String value = StandardCharsets.UTF_8.decode(record.value()).toString();
            if (value.equals("!")) {
                throw new IllegalStateException("undecodable value");
            }
            values.put(StandardCharsets.UTF_8.decode(record.key()).toString(), value);
            replayedOffsets.add(offset);
        }

        @Override
        public void onLoaded(int replayed, int skipped) {
            loadedReplayed = replayed;
            loadedSkipped = skipped;
        }
    }

    @BeforeEach
    void start() {
        cluster = new CoordinatorFixture(dir, 2);
    }

    @AfterEach
    void close() {
        cluster.close();
    }

    private CoordinatorRuntime<KeyValueShard> newRuntime() {
        return cluster.call(() -> new CoordinatorRuntime<>(cluster.state, new CoordinatorRuntime.Spec(TOPIC,
                "offsets.commit.timeout.ms", false, c -> new CoordinatorRuntime.TopicLayout(2, 2, Map.of())),
                new CoordinatorRuntime.Lifecycle<KeyValueShard>() {
                    @Override
                    public KeyValueShard newShard(int partition, int brokerId) {
                        lifecycle.add("new " + partition + "@" + brokerId);
                        return new KeyValueShard(partition, brokerId);
                    }

                    @Override
                    public void onLoaded(KeyValueShard shard) {
                        lifecycle.add("loaded " + shard.partition + "@" + shard.brokerId);
                        topicPublishedAtLoad.add(cluster.state.metadata().topic(TOPIC) != null);
                    }

                    @Override
                    public void onUnloaded(KeyValueShard shard) {
                        lifecycle.add("unloaded " + shard.partition + "@" + shard.brokerId);
                    }
                }));
    }

    private void createTopic() {
        cluster.createTopic(TOPIC, List.of(List.of(1, 2), List.of(2, 1)));
    }

    /** A key that lives in {@code partition} of the two. */
    private static String keyOn(int partition) {
        for (int i = 0; ; i++) {
            if (CoordinatorRuntime.partitionFor("key-" + i, 2) == partition) {
                return "key-" + i;
            }
        }
    }

    private static CoordinatorResult<String> put(String key, String value) {
        return new CoordinatorResult<>(List.of(new SimpleRecord(key.getBytes(StandardCharsets.UTF_8),
                value.getBytes(StandardCharsets.UTF_8))), "put " + key);
    }

    /** Schedules a put of {@code key} on {@code brokerId}; the reference holds the answer once there is one. */
    private AtomicReference<String> write(CoordinatorRuntime<KeyValueShard> runtime, int brokerId, String key, String value) {
        AtomicReference<String> answer = new AtomicReference<>();
        cluster.run(() -> runtime.scheduleWriteOperation(brokerId, CoordinatorRuntime.partitionFor(key, 2), shard -> put(key, value),
                (response, error) -> answer.set(error == Errors.NONE ? response : error.name())));
        return answer;
    }

    private static void awaitAnswer(AtomicReference<String> answer, String expected) {
        Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(answer.get()).isEqualTo(expected));
    }

    @Test
    void aKeyRoutesToItsPartitionByKafkasRuleAndOnlyItsLeaderAnswersForIt() {
        CoordinatorRuntime<KeyValueShard> runtime = newRuntime();
        assertThat(CoordinatorRuntime.partitionFor("billing", 50)).isEqualTo(Utils.abs("billing".hashCode()) % 50);
        String negative = "polygenelubricants"; // hashCode() is Integer.MIN_VALUE
        assertThat(negative.hashCode()).isEqualTo(Integer.MIN_VALUE);
        assertThat(CoordinatorRuntime.partitionFor(negative, 7)).isEqualTo(0);

        assertThatThrownBy(() -> cluster.call(() -> runtime.activeShard(1, keyOn(0))))
                .as("before the topic exists").isInstanceOf(CoordinatorNotAvailableException.class);
        createTopic();

        assertThat(cluster.call(() -> runtime.activeShard(1, keyOn(0)).partition())).isEqualTo(0);
        assertThat(cluster.call(() -> runtime.activeShard(2, keyOn(1)).partition())).isEqualTo(1);
        assertThatThrownBy(() -> cluster.call(() -> runtime.activeShard(2, keyOn(0))))
                .isInstanceOf(NotCoordinatorException.class).hasMessageContaining("broker 1 is");
    }

    @Test
    void everyPartitionIsLoadedOnItsLeaderWhenTheTopicIsCreated() {
        CoordinatorRuntime<KeyValueShard> runtime = newRuntime();

        createTopic();

        assertThat(lifecycle).containsExactly("new 0@1", "loaded 0@1", "new 1@2", "loaded 1@2");
        assertThat(topicPublishedAtLoad).containsExactly(true, true);
        assertThat(cluster.call(() -> runtime.shards().stream().map(s -> s.partition + "@" + s.brokerId).toList()))
                .containsExactlyInAnyOrder("0@1", "1@2");
    }

    @Test
    void theNewLeaderReplaysTheLogAndTheOldOneAnswersNotCoordinator() {
        CoordinatorRuntime<KeyValueShard> runtime = newRuntime();
        createTopic();
        String key = keyOn(0);
        awaitAnswer(write(runtime, 1, key, "a"), "put " + key);
        KeyValueShard old = cluster.call(() -> runtime.activeShard(1, key));
        // Bytes no operation would compute, as a client writing to the internal topic could leave.
        cluster.run(() -> cluster.state.replicaManager().appendAsLeader(old.brokerId, P0, MemoryRecords.withRecords(Compression.NONE,
                new SimpleRecord(key.getBytes(StandardCharsets.UTF_8), "!".getBytes(StandardCharsets.UTF_8))), (short) 1));
        awaitAnswer(write(runtime, 1, key, "b"), "put " + key);
        lifecycle.clear();

        cluster.shutDown(1);

        assertThat(lifecycle).as("partition 1 kept its leader").containsExactly("unloaded 0@1", "new 0@2", "loaded 0@2");
        KeyValueShard loaded = cluster.call(() -> runtime.activeShard(2, key));
        assertThat(loaded.values).containsExactly(Map.entry(key, "b"));
        assertThat(loaded.replayedOffsets).containsExactly(0L, 2L);
        assertThat(loaded.loadedReplayed).isEqualTo(2);
        assertThat(loaded.loadedSkipped).isEqualTo(1);
        assertThat(cluster.call(() -> cluster.state.timeline().events().stream().map(TimedEvent::event)
                .filter(CoordinatorRecordSkipped.class::isInstance).toList())).hasSize(1);
        assertThat(cluster.call(() -> runtime.isLoaded(old))).isFalse();
        assertThatThrownBy(() -> cluster.call(() -> runtime.activeShard(1, key))).isInstanceOf(NotCoordinatorException.class);
        assertThat(write(runtime, 1, key, "c").get()).isEqualTo("NOT_COORDINATOR");
    }

    @Test
    void aWriteIsAnsweredOnlyOnceReplicatedAndTheShardSeesItAtOnce() {
        CoordinatorRuntime<KeyValueShard> runtime = newRuntime();
        createTopic();
        String key = keyOn(0);
        cluster.pauseFollower(P0, 2);

        AtomicReference<String> answer = write(runtime, 1, key, "a");

        assertThat(cluster.call(() -> runtime.activeShard(1, key).values)).containsEntry(key, "a");
        cluster.run(() -> { });
        assertThat(answer.get()).as("the follower has not fetched it").isNull();
        assertThat(cluster.partition(P0).highWatermark()).isZero();
        cluster.resumeFollower(P0, 2);
        awaitAnswer(answer, "put " + key);
        assertThat(cluster.partition(P0).highWatermark()).isEqualTo(1);
    }

    @Test
    void aWriteParkedWhenItsPartitionMovesAwayIsAnsweredNotCoordinatorAtOnce() {
        CoordinatorRuntime<KeyValueShard> runtime = newRuntime();
        createTopic();
        String key = keyOn(0);
        cluster.pauseFollower(P0, 2);
        AtomicReference<String> answer = write(runtime, 1, key, "a");
        cluster.run(() -> { });
        assertThat(answer.get()).isNull();

        cluster.shutDown(1);

        assertThat(answer.get()).isEqualTo("NOT_COORDINATOR");
    }

    @Test
    void aResultReplayedWhenCommittedReachesTheShardOnlyOnceReplicated() {
        CoordinatorRuntime<KeyValueShard> runtime = newRuntime();
        createTopic();
        String key = keyOn(0);
        cluster.pauseFollower(P0, 2);
        AtomicReference<String> answer = new AtomicReference<>();

        cluster.run(() -> runtime.scheduleWriteOperation(1, 0,
                shard -> put(key, "a").withReplay(CoordinatorResult.Replay.WHEN_COMMITTED),
                (response, error) -> answer.set(error == Errors.NONE ? response : error.name())));

        assertThat(cluster.call(() -> runtime.activeShard(1, key).values)).as("not replicated yet").doesNotContainKey(key);
        cluster.resumeFollower(P0, 2);
        awaitAnswer(answer, "put " + key);
        assertThat(cluster.call(() -> runtime.activeShard(1, key).values)).containsEntry(key, "a");
    }

    @Test
    void appendErrorsReachTheClientAsKafkasCoordinatorMapsThem() {
        assertThat(CoordinatorRuntime.appendError(Errors.NOT_LEADER_OR_FOLLOWER.exception())).isEqualTo(Errors.NOT_COORDINATOR);
        assertThat(CoordinatorRuntime.appendError(Errors.KAFKA_STORAGE_ERROR.exception())).isEqualTo(Errors.NOT_COORDINATOR);
        assertThat(CoordinatorRuntime.appendError(Errors.NOT_ENOUGH_REPLICAS.exception())).isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE);
        assertThat(CoordinatorRuntime.appendError(Errors.UNKNOWN_TOPIC_OR_PARTITION.exception()))
                .isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE);
        assertThat(CoordinatorRuntime.appendError(Errors.REQUEST_TIMED_OUT.exception())).isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE);
        assertThat(CoordinatorRuntime.appendError(Errors.RECORD_LIST_TOO_LARGE.exception())).isEqualTo(Errors.UNKNOWN_SERVER_ERROR);
        assertThat(CoordinatorRuntime.appendError(Errors.INVALID_PRODUCER_EPOCH.exception()))
                .as("the log's answer to a fenced producer stays itself").isEqualTo(Errors.INVALID_PRODUCER_EPOCH);
    }

    @Test
    void anOperationThatFailsWritesNothingAndAnswersItsError() {
        CoordinatorRuntime<KeyValueShard> runtime = newRuntime();
        createTopic();
        AtomicReference<Errors> error = new AtomicReference<>();

        cluster.run(() -> runtime.<String>scheduleWriteOperation(1, 0, shard -> {
            throw new InvalidRequestException("no");
        }, (response, e) -> error.set(e)));

        assertThat(error.get()).isEqualTo(Errors.INVALID_REQUEST);
        assertThat(cluster.partition(P0).leaderLog().logEndOffset()).isZero();
    }

    @Test
    void inspectionIsAPureReadThatLoadsNothing() {
        createTopic();
        // Created after the topic got its leaders: no shard is loaded, as if a load had not happened yet.
        CoordinatorRuntime<KeyValueShard> runtime = newRuntime();

        assertThat(cluster.call(() -> runtime.shardOrNull(keyOn(0)))).isNull();
        assertThat(cluster.call(() -> runtime.shards())).isEmpty();
        assertThat(lifecycle).isEmpty();
        assertThatThrownBy(() -> cluster.call(() -> runtime.activeShard(1, keyOn(0))))
                .isInstanceOf(CoordinatorLoadInProgressException.class);
        assertThat(lifecycle).as("a request does not load either").isEmpty();
    }
}
