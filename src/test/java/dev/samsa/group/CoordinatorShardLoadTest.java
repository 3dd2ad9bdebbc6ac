package dev.samsa.group;

import static org.assertj.core.api.Assertions.assertThat;

import dev.samsa.coordinator.CoordinatorLoader;
import dev.samsa.event.Timeline;
import dev.samsa.log.LogConfig;
import dev.samsa.log.LogConfigs;
import dev.samsa.log.PartitionLog;
import dev.samsa.log.store.MappedStores;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Loading a coordinator shard from its {@code __consumer_offsets} replica survives bytes it cannot read. */
class CoordinatorShardLoadTest {

    private static final long NOW = 1_700_000_000_000L;

    @TempDir
    Path tmp;

    @Test
    void anUndecodableRecordIsSkippedAndReportedAndTheRestLoads() throws Exception {
        TopicPartition tp = new TopicPartition("orders", 0);
        PartitionLog log = PartitionLog.open(tmp.resolve("__consumer_offsets-0"), LogConfigs.defaults(), MappedStores.detect(), NOW);
        try {
            // A key of offset-commit type whose group length runs past the end: what a client once could produce.
            SimpleRecord garbage = new SimpleRecord(NOW, new byte[] {0, 1, 0x7F, (byte) 0xFF}, "x".getBytes(StandardCharsets.UTF_8));
            SimpleRecord commit = GroupRecords.offsetCommit(NOW, "billing", tp, new CommittedOffset(42, 0, "", NOW));
            log.appendAsLeader(GroupRecords.batch(garbage, commit), 0, NOW);
            Timeline timeline = new Timeline(() -> NOW, () -> NOW);

            GroupCoordinatorShard shard = new GroupCoordinatorShard(0, 1, timeline, NOW, NOW);
            CoordinatorLoader.load(GroupCoordinator.OFFSETS_TOPIC, shard, log, timeline);

            assertThat(shard.offsets("billing")).containsKey(tp);
            assertThat(shard.offsets("billing").get(tp).offset()).isEqualTo(42);
            assertThat(timeline.toString()).contains("CoordinatorRecordSkipped", "offset=0", "skipped=1");
        } finally {
            log.close();
        }
    }

    @Test
    void stringsLongerThan32767BytesSurviveTheRoundTrip() {
        String group = "g".repeat(40_000);
        TopicPartition tp = new TopicPartition("t", 3);
        String metadata = "m".repeat(70_000);
        SimpleRecord record = GroupRecords.offsetCommit(NOW, group, tp, new CommittedOffset(7, 1, metadata, NOW));
        Record read = GroupRecords.batch(record).records().iterator().next();

        GroupRecords.Decoded decoded = GroupRecords.decode(read);

        assertThat(decoded.groupId()).isEqualTo(group);
        assertThat(decoded.partition()).isEqualTo(tp);
        assertThat(decoded.offset().metadata()).isEqualTo(metadata);
    }
}
