package dev.samsa.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.samsa.event.HighWatermark;
import dev.samsa.event.RecordsDeleted;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.FencedLeaderEpochException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.DeleteRecordsRequest;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The read side of ReplicaManager on the domain alone. Partition "p" has replicas 1 (leader) and 2; follower 2 is
 * paused after the first record, so the high watermark stays at 1 while the leader's log reaches 3.
 */
class ReplicaManagerTest {

    private static final int MAX_BYTES = 1024 * 1024;

    @TempDir
    Path dir;
    private ClusterFixture cluster;
    private ReplicaManager replicaManager;
    private TopicIdPartition p;

    @BeforeEach
    void threeRecordsOneReplicated() {
        cluster = new ClusterFixture(dir, 2, Map.of());
        Partition partition = cluster.createTopic("p", List.of(1, 2));
        p = new TopicIdPartition(partition.topic().id(), partition.topicPartition());
        replicaManager = cluster.state.replicaManager();
        cluster.append(p.topicPartition(), new SimpleRecord(1_000L, null, bytes("a")));
        cluster.run(() -> cluster.state.fetcher().pause(partition, 2));
        cluster.append(p.topicPartition(), new SimpleRecord(2_000L, null, bytes("b")));
        cluster.append(p.topicPartition(), new SimpleRecord(3_000L, null, bytes("c")));
    }

    @AfterEach
    void close() {
        cluster.close();
    }

    private LogReadResult read(int brokerId, TopicIdPartition tp, long fetchOffset, int currentLeaderEpoch) {
        return cluster.call(() -> replicaManager.readFromLog(brokerId,
                Map.of(tp, new PartitionFetchInfo(fetchOffset, currentLeaderEpoch, MAX_BYTES)), MAX_BYTES,
                IsolationLevel.READ_UNCOMMITTED).get(tp));
    }

    private static List<String> values(LogReadResult result) {
        List<String> out = new ArrayList<>();
        for (Record r : result.records().records()) {
            out.add(StandardCharsets.UTF_8.decode(r.value()).toString());
        }
        return out;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void shouldReadOnlyBelowTheHighWatermarkAndAnswerWithTheLeadersOffsets() {
        LogReadResult result = read(1, p, 0, -1);
        assertThat(result.error()).isEqualTo(Errors.NONE);
        assertThat(values(result)).containsExactly("a");
        assertThat(result.highWatermark()).isEqualTo(1);
        assertThat(result.lastStableOffset()).isEqualTo(1);
        assertThat(result.logStartOffset()).isZero();
        assertThat(values(read(1, p, 1, -1))).as("at the high watermark: nothing yet").isEmpty();
    }

    @Test
    void shouldAnswerAFetchPastTheLogEndWithOffsetOutOfRangeAndTheLeadersOffsets() {
        LogReadResult result = read(1, p, 4, -1);
        assertThat(result.error()).isEqualTo(Errors.OFFSET_OUT_OF_RANGE);
        assertThat(result.hasLeaderOffsets()).isTrue();
        assertThat(result.highWatermark()).isEqualTo(1);
        assertThat(result.records().sizeInBytes()).isZero();
    }

    @Test
    void shouldAnswerWithoutOffsetsWhenThePartitionCannotServeTheFetch() {
        assertThat(read(2, p, 0, -1).error()).as("a follower").isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER);
        assertThat(read(1, p, 0, 7).error()).as("an epoch newer than the leader's").isEqualTo(Errors.UNKNOWN_LEADER_EPOCH);
        LogReadResult unknownId = read(1, new TopicIdPartition(Uuid.randomUuid(), 0, null), 0, -1);
        assertThat(unknownId.error()).isEqualTo(Errors.UNKNOWN_TOPIC_ID);
        assertThat(unknownId.hasLeaderOffsets()).isFalse();
    }

    @Test
    void shouldGiveTheFirstPartitionWithDataAWholeBatchPastTheLimitAndTheNextNothing() {
        Partition other = cluster.createTopic("q", List.of(1));
        TopicIdPartition q = new TopicIdPartition(other.topic().id(), other.topicPartition());
        cluster.append(q.topicPartition(), "x");
        Map<TopicIdPartition, PartitionFetchInfo> fetches = new LinkedHashMap<>();
        fetches.put(p, new PartitionFetchInfo(0, -1, MAX_BYTES));
        fetches.put(q, new PartitionFetchInfo(0, -1, MAX_BYTES));
        Map<TopicIdPartition, LogReadResult> results = cluster.call(() -> replicaManager.readFromLog(1, fetches, 1, IsolationLevel.READ_UNCOMMITTED));
        assertThat(values(results.get(p))).as("one byte allowed, one whole batch given").containsExactly("a");
        assertThat(values(results.get(q))).as("nothing left of the budget").isEmpty();
    }

    @Test
    void shouldFindOffsetsByTimestampBelowTheHighWatermarkOnly() {
        TopicPartition tp = p.topicPartition();
        assertThat(cluster.call(() -> replicaManager.fetchOffsetForTimestamp(1, tp, -1, ReplicaManager.EARLIEST_TIMESTAMP, IsolationLevel.READ_UNCOMMITTED)))
                .hasValueSatisfying(found -> assertThat(found.offset).isZero());
        assertThat(cluster.call(() -> replicaManager.fetchOffsetForTimestamp(1, tp, -1, ReplicaManager.LATEST_TIMESTAMP, IsolationLevel.READ_UNCOMMITTED)))
                .hasValueSatisfying(found -> assertThat(found.offset).as("the high watermark").isEqualTo(1));
        assertThat(cluster.call(() -> replicaManager.fetchOffsetForTimestamp(1, tp, -1, 1_000L, IsolationLevel.READ_UNCOMMITTED)))
                .hasValueSatisfying(found -> assertThat(found.offset).isZero());
        Optional<FileRecords.TimestampAndOffset> aboveHighWatermark =
                cluster.call(() -> replicaManager.fetchOffsetForTimestamp(1, tp, -1, 2_000L, IsolationLevel.READ_UNCOMMITTED));
        assertThat(aboveHighWatermark).as("offset 1 is not replicated yet").isEmpty();
        assertThat(cluster.call(() -> replicaManager.fetchOffsetForTimestamp(1, tp, -1, ReplicaManager.LATEST_TIERED_TIMESTAMP, IsolationLevel.READ_UNCOMMITTED)))
                .isEmpty();
        assertThatThrownBy(() -> cluster.call(() -> replicaManager.fetchOffsetForTimestamp(2, tp, -1, 0L, IsolationLevel.READ_UNCOMMITTED)))
                .isInstanceOf(NotLeaderOrFollowerException.class);
    }

    @Test
    void shouldDeleteRecordsUpToTheHighWatermarkAndNoFurther() {
        TopicPartition tp = p.topicPartition();
        assertThatThrownBy(() -> cluster.call(() -> replicaManager.deleteRecords(1, tp, 2)))
                .isInstanceOf(OffsetOutOfRangeException.class).hasMessageContaining("high watermark 1");
        assertThat(cluster.call(() -> replicaManager.deleteRecords(1, tp, ReplicaManager.DELETE_TO_HIGH_WATERMARK))).isEqualTo(1);
        assertThat(cluster.events(RecordsDeleted.class)).singleElement()
                .satisfies(e -> assertThat(e.logStartOffset()).isEqualTo(1));
        assertThat(cluster.call(() -> replicaManager.deleteRecords(1, tp, 0))).as("below the log start: nothing changes").isEqualTo(1);
    }

    @Test
    void shouldAnswerTheEndOffsetOfAnEpochAfterCheckingTheClientsEpoch() {
        TopicPartition tp = p.topicPartition();
        int epoch = cluster.call(() -> cluster.state.metadata().partition(tp).leaderEpoch());
        assertThat(cluster.call(() -> replicaManager.lastOffsetForLeaderEpoch(1, tp, epoch, epoch)))
                .isEqualTo(new OffsetAndEpoch(3, epoch));
        // Broker 1 stops: broker 2 leads in the next epoch, and a client still on the old one is fenced.
        cluster.run(() -> cluster.state.controller().brokerStopped(1, Controller.Stop.CRASH, cluster.state.random()));
        assertThat(cluster.call(() -> cluster.state.metadata().partition(tp).leaderEpoch())).isEqualTo(epoch + 1);
        assertThatThrownBy(() -> cluster.call(() -> replicaManager.lastOffsetForLeaderEpoch(2, tp, epoch, epoch)))
                .isInstanceOf(FencedLeaderEpochException.class);
    }

    @Test
    void shouldMoveTheHighWatermarkWhenAFollowerCatchesUpAndCompleteWhatWaitsOnIt() {
        TopicPartition tp = p.topicPartition();
        List<Long> completedAt = new ArrayList<>();
        cluster.run(() -> cluster.state.purgatory().tryCompleteElseWatch(new DelayedOperation() {
            @Override
            public boolean tryComplete() {
                return cluster.state.metadata().partition(tp).highWatermark() >= 3 && forceComplete();
            }

            @Override
            protected void onComplete() {
                completedAt.add(cluster.state.metadata().partition(tp).highWatermark());
            }
        }, List.of(tp), 60_000, "test"));
        assertThat(cluster.call(() -> List.copyOf(completedAt))).isEmpty();
        cluster.run(() -> {
            cluster.state.faults().resume(tp, 2);
            cluster.state.fetcher().replicateSoon(cluster.state.metadata().partition(tp));
        });
        // The replication task runs right after that one, before the next call.
        assertThat(cluster.call(() -> List.copyOf(completedAt))).as("completed once, by the high watermark's move").containsExactly(3L);
        assertThat(cluster.events(HighWatermark.class)).last().satisfies(e -> assertThat(e.highWatermark()).isEqualTo(3));
    }

    @Test
    void shouldNameTheSpecialOffsetsAsKafkaDoes() {
        assertThat(ReplicaManager.LATEST_TIMESTAMP).isEqualTo(ListOffsetsRequest.LATEST_TIMESTAMP);
        assertThat(ReplicaManager.EARLIEST_TIMESTAMP).isEqualTo(ListOffsetsRequest.EARLIEST_TIMESTAMP);
        assertThat(ReplicaManager.MAX_TIMESTAMP).isEqualTo(ListOffsetsRequest.MAX_TIMESTAMP);
        assertThat(ReplicaManager.EARLIEST_LOCAL_TIMESTAMP).isEqualTo(ListOffsetsRequest.EARLIEST_LOCAL_TIMESTAMP);
        assertThat(ReplicaManager.LATEST_TIERED_TIMESTAMP).isEqualTo(ListOffsetsRequest.LATEST_TIERED_TIMESTAMP);
        assertThat(ReplicaManager.DELETE_TO_HIGH_WATERMARK).isEqualTo(DeleteRecordsRequest.HIGH_WATERMARK);
    }

    @Test
    void shouldBuildItsServicesOncePerCluster() {
        assertThat(cluster.state.replicaManager()).isSameAs(replicaManager);
        assertThat(cluster.state.controller()).isSameAs(cluster.state.controller());
        assertThat(cluster.state.fetcher()).isSameAs(cluster.state.fetcher());
    }
}
