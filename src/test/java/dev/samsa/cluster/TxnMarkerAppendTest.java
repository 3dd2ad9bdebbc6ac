package dev.samsa.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.TransactionCoordinatorFencedException;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** ReplicaManager.appendTxnMarker: the leader appends, the followers replicate, the listeners hear. */
class TxnMarkerAppendTest {

    private static final long PID = 77L;
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
        cluster.call(() -> cluster.state.replicaManager().appendAsLeader(1, tp, MemoryRecords.withTransactionalRecords(
                Compression.NONE, PID, EPOCH, sequence, new SimpleRecord(value.getBytes())), (short) -1));
    }

    private LogAppendResult marker(int brokerId, short epoch, int coordinatorEpoch, boolean committed) {
        return cluster.call(() -> cluster.state.replicaManager().appendTxnMarker(brokerId, tp, PID, epoch,
                coordinatorEpoch, committed));
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
}
