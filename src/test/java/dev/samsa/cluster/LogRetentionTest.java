package dev.samsa.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.samsa.event.RetentionDeleted;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Retention on the domain alone, through the instance the cluster state built. Partition "logs" on brokers 1 and 2
 * keeps records for an hour in one-minute segments: record 0 in the first segment, written at the start, and record 1
 * in the second, written 61 s later.
 */
class LogRetentionTest {

    private static final TopicPartition TP = new TopicPartition("logs", 0);
    private static final long HOUR_MS = 3_600_000L;

    @TempDir
    Path dir;
    private ClusterFixture cluster;
    private Partition partition;

    private void start(Map<String, String> topicConfigs) {
        cluster = new ClusterFixture(dir, 2, Map.of());
        Map<String, String> configs = new HashMap<>(Map.of("retention.ms", Long.toString(HOUR_MS), "segment.ms", "60000"));
        configs.putAll(topicConfigs);
        partition = cluster.call(() -> cluster.state.metadata().createTopic("logs", -1, -1,
                List.of(new ReplicaAssignment(0, List.of(1, 2))), configs, false).partitions().get(0));
        append("old");
        cluster.advance(61_000);
        append("new");
        assertThat(cluster.call(partition::highWatermark)).isEqualTo(2);
    }

    private void append(String value) {
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        // Keyed, so that a compacted topic takes it too.
        cluster.append(TP, new SimpleRecord(cluster.clock.milliseconds(), bytes, bytes));
    }

    @AfterEach
    void close() {
        cluster.close();
    }

    private long logStartOffset(int broker) {
        return cluster.call(() -> partition.log(broker).logStartOffset());
    }

    @Test
    void theCheckEveryIntervalDropsTheSegmentOlderThanRetentionMsOnEveryReplica() {
        start(Map.of());
        cluster.run(() -> cluster.state.logRetention().schedule());

        // The check at the hour (log.retention.check.interval.ms = 5 min) finds record 0 exactly retention.ms old.
        cluster.advance(HOUR_MS - 61_000);
        assertThat(logStartOffset(1)).isZero();
        assertThat(cluster.events(RetentionDeleted.class)).isEmpty();

        cluster.advance(300_000);
        assertThat(logStartOffset(1)).isEqualTo(1);
        assertThat(logStartOffset(2)).isEqualTo(1);
        assertThat(cluster.events(RetentionDeleted.class)).extracting(RetentionDeleted::brokerId).containsExactlyInAnyOrder(1, 2);
    }

    @Test
    void aCompactedTopicKeepsEverything() {
        start(Map.of("cleanup.policy", "compact"));
        cluster.advance(2 * HOUR_MS);

        cluster.run(() -> cluster.state.logRetention().check());

        assertThat(logStartOffset(1)).isZero();
        assertThat(logStartOffset(2)).isZero();
        assertThat(cluster.events(RetentionDeleted.class)).isEmpty();
    }
}
