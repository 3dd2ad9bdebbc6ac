package dev.samsa.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** producer.id.expiration.ms on the cluster clock: idle producers go on every replica, those in a transaction stay. */
class ProducerExpirationTest {

    private static final long IDLE = 10L;
    private static final long IN_TXN = 11L;
    private static final long EXPIRATION_MS = 3_600_000L;
    private static final long CHECK_INTERVAL_MS = 60_000L;

    @TempDir
    Path dir;
    private ClusterFixture cluster;
    private TopicPartition tp;

    @BeforeEach
    void start() {
        cluster = new ClusterFixture(dir, 2, Map.of("producer.id.expiration.ms", Long.toString(EXPIRATION_MS),
                "producer.id.expiration.check.interval.ms", Long.toString(CHECK_INTERVAL_MS)));
        tp = cluster.createTopic("t", List.of(1, 2)).topicPartition();
        cluster.run(() -> cluster.state.controller().activate());
    }

    @AfterEach
    void close() {
        cluster.close();
    }

    private void append(MemoryRecords records) {
        cluster.run(() -> cluster.state.replicaManager().appendAsLeader(1, tp, records, (short) -1));
    }

    private SimpleRecord stampedNow() {
        return new SimpleRecord(cluster.clock.milliseconds(), null, "v".getBytes());
    }

    private List<Long> producers(int brokerId) {
        return cluster.call(() -> cluster.state.replicaManager().activeProducers(brokerId, tp)).stream()
                .map(ActiveProducer::producerId).toList();
    }

    @Test
    void shouldForgetAnIdleProducerOnEveryReplicaButKeepOneWithAnOpenTransaction() {
        append(MemoryRecords.withIdempotentRecords(Compression.NONE, IDLE, (short) 0, 0, stampedNow()));
        append(MemoryRecords.withTransactionalRecords(Compression.NONE, IN_TXN, (short) 0, 0, stampedNow()));
        assertThat(producers(1)).containsExactly(IDLE, IN_TXN);
        assertThat(producers(2)).as("the follower replicated both").containsExactly(IDLE, IN_TXN);

        cluster.advance(EXPIRATION_MS - CHECK_INTERVAL_MS);
        assertThat(producers(1)).containsExactly(IDLE, IN_TXN);

        cluster.advance(CHECK_INTERVAL_MS);
        assertThat(producers(1)).containsExactly(IN_TXN);
        assertThat(producers(2)).containsExactly(IN_TXN);
    }
}
