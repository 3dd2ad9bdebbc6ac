package dev.samsa.cluster;

import dev.samsa.event.RetentionDeleted;
import dev.samsa.log.PartitionLog;

/**
 * Time and size retention: every log.retention.check.interval.ms of cluster time (an age deadline, so a manual clock
 * jump runs it), each replica drops its oldest segments past the topic's retention.ms or retention.bytes, never past
 * the high watermark, as Kafka's log manager does. A topic whose cleanup.policy lacks "delete" keeps everything.
 */
final class LogRetention {

    static final String TIMER_KEY = "log-retention-check";

    private final ClusterState cluster;

    LogRetention(ClusterState cluster) {
        this.cluster = cluster;
    }

    void schedule() {
        int broker = cluster.metadata().brokerIds().iterator().next();
        long intervalMs = cluster.metadata().brokerConfigs(broker).getLong("log.retention.check.interval.ms");
        cluster.scheduler().scheduleAfter(TIMER_KEY, intervalMs, () -> {
            check();
            schedule();
        });
    }

    void check() {
        long now = cluster.nowMs();
        for (Topic topic : cluster.metadata().topics()) {
            for (Partition partition : topic.partitions()) {
                for (int broker : partition.replicas()) {
                    PartitionLog log = partition.log(broker);
                    if (log == null) {
                        continue;
                    }
                    EffectiveTopicConfig configs = cluster.metadata().effectiveConfig(topic, broker);
                    if (!configs.delete()) {
                        continue;
                    }
                    long cutoff = log.retentionCutoff(now, configs.retentionMs(), configs.retentionBytes(),
                            Math.min(partition.highWatermark(), log.logEndOffset()));
                    if (cutoff > log.logStartOffset()) {
                        long before = log.logStartOffset();
                        log.deleteRecordsBefore(cutoff);
                        cluster.timeline().record(new RetentionDeleted(partition.topic().name(), partition.index(), broker,
                                before, cutoff));
                    }
                }
            }
        }
    }
}
