package dev.samsa.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.TransactionCoordinatorFencedException;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Transactions through ReplicaManager on three replicas: appendTxnMarker appends, replicates and announces markers;
 * read_committed reads stop at the last stable offset and name the aborted transactions, on any leader.
 */
class TransactionalReplicaManagerTest {

    private static final long PID = 77L;
    private static final long OTHER = 78L;
    private static final int MAX_BYTES = 1 << 20;
    private static final short EPOCH = 1;

    @TempDir
    Path dir;
    private ClusterFixture cluster;
    private TopicPartition tp;

    @BeforeEach
    void start() {
        cluster = new ClusterFixture(dir, 3, Map.of());
        tp = cluster.createTopic("t", List.of(1, 2, 3)).topicPartition();
    }

    @AfterEach
    void close() {
        cluster.close();
    }

    private void appendTransactional(int sequence, String value) {
        appendTransactional(PID, sequence, value);
    }

    private void appendTransactional(long producerId, int sequence, String value) {
        cluster.call(() -> cluster.state.replicaManager().appendAsLeader(leader(), tp, MemoryRecords.withTransactionalRecords(
                Compression.NONE, producerId, EPOCH, sequence, new SimpleRecord(value.getBytes())), (short) -1));
    }

    private int leader() {
        return cluster.call(() -> cluster.state.metadata().partition(tp).leader());
    }

    private LogAppendResult marker(int brokerId, short epoch, int coordinatorEpoch, boolean committed) {
        return marker(brokerId, PID, epoch, coordinatorEpoch, committed);
    }

    private LogAppendResult marker(int brokerId, long producerId, short epoch, int coordinatorEpoch, boolean committed) {
        return cluster.call(() -> cluster.state.replicaManager().appendTxnMarker(brokerId, tp, producerId, epoch,
                coordinatorEpoch, committed));
    }

    private LogReadResult readCommitted(int brokerId, long fetchOffset) {
        TopicIdPartition tip = new TopicIdPartition(cluster.call(() -> cluster.state.metadata().partition(tp).topic().id()), tp);
        return cluster.call(() -> cluster.state.replicaManager().readFromLog(brokerId,
                Map.of(tip, new PartitionFetchInfo(fetchOffset, -1, MAX_BYTES)), MAX_BYTES, IsolationLevel.READ_COMMITTED).get(tip));
    }

    /** The data records a read returned, control batches left out, as "offset:value". */
    private static List<String> data(LogReadResult read) {
        List<String> out = new ArrayList<>();
        for (RecordBatch batch : read.records().batches()) {
            if (!batch.isControlBatch()) {
                batch.forEach(r -> out.add(r.offset() + ":" + StandardCharsets.UTF_8.decode(r.value())));
            }
        }
        return out;
    }

    @Test
    void shouldAppendReplicateAndAnnounceAMarker() {
        List<String> heard = new ArrayList<>();
        cluster.run(() -> cluster.state.replicaManager().addTxnMarkerListener((brokerId, p, producerId, epoch, committed, offset) ->
                heard.add(brokerId + " " + p + " " + producerId + " " + epoch + " " + committed + " " + offset)));
        appendTransactional(0, "a");
        appendTransactional(1, "b");

        LogAppendResult result = marker(1, EPOCH, 0, true);

        assertThat(result.firstOffset()).isEqualTo(2);
        assertThat(result.lastOffset()).isEqualTo(2);
        assertThat(heard).containsExactly("1 t-0 77 1 true 2");
        assertThat(cluster.call(() -> cluster.state.replicaManager().acksAllOutcome(1, tp, result.lastOffset() + 1)))
                .as("replicated to the ISR").isEqualTo(Errors.NONE);
        for (int broker = 1; broker <= 3; broker++) {
            int b = broker;
            assertThat(cluster.call(() -> cluster.state.metadata().partition(tp).log(b).logEndOffset())).isEqualTo(3);
        }
    }

    @Test
    void shouldAnswerTheErrorsKafkaGives() {
        appendTransactional(0, "a");
        marker(1, EPOCH, 4, false);

        assertThatThrownBy(() -> marker(2, EPOCH, 4, true)).isInstanceOf(NotLeaderOrFollowerException.class);
        assertThatThrownBy(() -> marker(1, (short) 0, 4, true)).isInstanceOf(InvalidProducerEpochException.class);
        assertThatThrownBy(() -> marker(1, EPOCH, 3, true)).isInstanceOf(TransactionCoordinatorFencedException.class);
    }

    @Test
    void shouldBoundListOffsetsByTheLastStableOffsetForReadCommitted() {
        cluster.append(tp, new SimpleRecord(1_000L, null, "plain".getBytes()));
        cluster.call(() -> cluster.state.replicaManager().appendAsLeader(1, tp, MemoryRecords.withTransactionalRecords(
                Compression.NONE, PID, EPOCH, 0, new SimpleRecord(2_000L, null, "open".getBytes())), (short) -1));

        assertThat(offsetFor(2_000L, IsolationLevel.READ_UNCOMMITTED)).hasValue(1L);
        assertThat(offsetFor(2_000L, IsolationLevel.READ_COMMITTED)).as("the record is above the LSO").isEmpty();
        assertThat(offsetFor(1_000L, IsolationLevel.READ_COMMITTED)).hasValue(0L);
        assertThat(offsetFor(ReplicaManager.MAX_TIMESTAMP, IsolationLevel.READ_COMMITTED)).isEmpty();
        assertThat(offsetFor(ReplicaManager.LATEST_TIMESTAMP, IsolationLevel.READ_UNCOMMITTED)).hasValue(2L);
        assertThat(offsetFor(ReplicaManager.LATEST_TIMESTAMP, IsolationLevel.READ_COMMITTED)).hasValue(1L);

        marker(1, EPOCH, 0, true);
        assertThat(offsetFor(2_000L, IsolationLevel.READ_COMMITTED)).hasValue(1L);
        assertThat(offsetFor(ReplicaManager.LATEST_TIMESTAMP, IsolationLevel.READ_COMMITTED)).hasValue(3L);
    }

    private Optional<Long> offsetFor(long timestamp, IsolationLevel isolation) {
        return cluster.call(() -> cluster.state.replicaManager().fetchOffsetForTimestamp(1, tp, -1, timestamp, isolation))
                .map(found -> found.offset);
    }

    @Test
    void shouldReadCommittedUpToTheLastStableOffsetOnEveryLeaderAndNameTheAbortedTransactions() {
        cluster.append(tp, "plain");
        appendTransactional(PID, 0, "a");
        appendTransactional(OTHER, 0, "x");
        appendTransactional(PID, 1, "b");

        LogReadResult open = readCommitted(1, 0);
        assertThat(data(open)).containsExactly("0:plain");
        assertThat(open.highWatermark()).isEqualTo(4);
        assertThat(open.lastStableOffset()).isEqualTo(1);
        assertThat(open.abortedTransactions()).isEmpty();
        assertThat(cluster.call(() -> cluster.state.replicaManager().fetchOffsetForTimestamp(1, tp, -1,
                ReplicaManager.LATEST_TIMESTAMP, IsolationLevel.READ_COMMITTED)).orElseThrow().offset)
                .as("ListOffsets latest, read_committed").isEqualTo(1);

        marker(1, PID, EPOCH, 0, false);
        LogReadResult afterAbort = readCommitted(1, 0);
        assertThat(afterAbort.lastStableOffset()).as("OTHER's transaction is still open").isEqualTo(2);
        assertThat(data(afterAbort)).containsExactly("0:plain", "1:a");
        assertThat(afterAbort.abortedTransactions()).containsExactly(new LogReadResult.AbortedTransaction(PID, 1));

        cluster.run(() -> cluster.state.controller().brokerStopped(1, Controller.Stop.CRASH, cluster.state.random()));
        assertThat(leader()).isEqualTo(2);
        LogReadResult newLeader = readCommitted(2, 0);
        assertThat(newLeader.lastStableOffset()).as("the new leader knows the open transaction").isEqualTo(2);
        assertThat(newLeader.abortedTransactions()).containsExactly(new LogReadResult.AbortedTransaction(PID, 1));

        marker(2, OTHER, EPOCH, 0, true);
        LogReadResult committed = readCommitted(2, 2);
        assertThat(committed.lastStableOffset()).isEqualTo(6);
        assertThat(data(committed)).containsExactly("2:x", "3:b");
        assertThat(committed.abortedTransactions()).as("PID's aborted transaction overlaps offset 3")
                .containsExactly(new LogReadResult.AbortedTransaction(PID, 1));
        assertThat(readCommitted(2, 5).abortedTransactions()).isEmpty();
    }
}
