package dev.samsa.cluster;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;

import dev.samsa.event.Compacted;
import dev.samsa.log.PartitionLog;
import dev.samsa.log.cleaner.Cleaner;
import dev.samsa.log.cleaner.CleanerStats;
import dev.samsa.log.cleaner.CompactionConfig;
import dev.samsa.log.cleaner.LogToClean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Log compaction on the cluster clock, as Kafka's LogCleaner with its LogCleanerManager: every log.cleaner.backoff.ms
 * of cluster time (an age deadline, so a manual clock jump runs it) each broker cleans its replicas of compacted
 * topics whose dirty ratio is above min.cleanable.dirty.ratio or whose oldest dirty record is older than
 * max.compaction.lag.ms, dirtiest first. Kafka's cleaner thread cleans one log at a time and backs off only when none
 * is left to clean, so one check here cleans every log that qualifies. Every replica compacts on its own.
 *
 * <p>Where each log is clean up to (Kafka's cleaner-offset-checkpoint) is kept in memory: after a restart the whole
 * log counts as dirty, which only makes the next pass do more work.
 */
public final class LogCleaner {

    static final String TIMER_KEY = "log-cleaner-check";
    private static final Logger LOG = LoggerFactory.getLogger(LogCleaner.class);

    private final ClusterState cluster;
    private final Cleaner cleaner = new Cleaner();
    private final Map<PartitionLog, Long> checkpoints = new WeakHashMap<>();
    private final Set<PartitionLog> uncleanable = Collections.newSetFromMap(new WeakHashMap<>());

    LogCleaner(ClusterState cluster) {
        this.cluster = cluster;
    }

    void schedule() {
        int broker = cluster.metadata().brokerIds().iterator().next();
        BrokerConfigs configs = cluster.metadata().brokerConfigs(broker);
        if (!configs.getBoolean("log.cleaner.enable")) {
            return;
        }
        cluster.scheduler().scheduleAfter(TIMER_KEY, configs.getLong("log.cleaner.backoff.ms"), () -> {
            check();
            schedule();
        });
    }

    /** One check of every broker's cleaner. */
    void check() {
        long now = cluster.nowMs();
        record Candidate(Partition partition, int broker, PartitionLog log, LogToClean toClean, CompactionConfig config) {
        }
        List<Candidate> dirty = new ArrayList<>();
        forEachCompactedReplica(null, -1, (partition, broker, log, config) -> {
            if (uncleanable.contains(log)) {
                return;
            }
            LogToClean toClean = LogToClean.of(log, checkpoints.getOrDefault(log, -1L), lastStableOffset(partition, log),
                    config, now);
            if (toClean.shouldClean(config)) {
                dirty.add(new Candidate(partition, broker, log, toClean, config));
            }
        });
        dirty.sort(Comparator.comparingDouble((Candidate c) -> c.toClean().cleanableRatio()).reversed());
        for (Candidate c : dirty) {
            try {
                clean(c.partition(), c.broker(), c.log(), c.toClean(), c.config(), now);
            } catch (RuntimeException e) {
                // As Kafka's markPartitionUncleanable: the log stays as it was and the cleaner leaves it alone.
                LOG.error("Cannot clean {}-{} on broker {}; it will not be cleaned again until the broker restarts",
                        c.partition().topic().name(), c.partition().index(), c.broker(), e);
                uncleanable.add(c.log());
            }
        }
    }

    /**
     * A full pass now on every replica of {@code topic} (or of one partition, if {@code partition >= 0}), whatever
     * the ratios and lags, but never the active segment nor past the last stable offset.
     *
     * @return the records removed, over all replicas
     */
    public long compact(String topic, int partition) {
        Topic t = cluster.metadata().requireTopic(topic);
        long now = cluster.nowMs();
        long[] removed = {0};
        forEachCompactedReplica(t, partition, (p, broker, log, config) -> removed[0] += clean(p, broker, log,
                LogToClean.full(log, lastStableOffset(p, log)), config, now).recordsRemoved());
        return removed[0];
    }

    /** Rolls the active segment of every replica of {@code topic}, so that a pass may clean what it held. */
    public void rollSegments(String topic) {
        for (Partition partition : cluster.metadata().requireTopic(topic).partitions()) {
            for (int broker : partition.replicas()) {
                PartitionLog log = partition.log(broker);
                if (log != null) {
                    log.roll();
                }
            }
        }
    }

    private CleanerStats clean(Partition partition, int broker, PartitionLog log, LogToClean toClean,
                               CompactionConfig config, long now) {
        CleanerStats stats = cleaner.clean(log, toClean, config, now);
        checkpoints.put(log, stats.endOffset());
        cluster.timeline().record(new Compacted(partition.topic().name(), partition.index(), broker,
                stats.recordsRemoved(), stats.endOffset()));
        return stats;
    }

    /** A replica never cleans what a read_committed consumer could not read yet, as Kafka's cleanableOffsets. */
    private static long lastStableOffset(Partition partition, PartitionLog log) {
        return log.lastStableOffset(Math.min(partition.highWatermark(), log.logEndOffset()));
    }

    private interface ReplicaAction {
        void accept(Partition partition, int broker, PartitionLog log, CompactionConfig config);
    }

    /** The live replicas of compacted topics: every topic if {@code only} is null, every partition if {@code index < 0}. */
    private void forEachCompactedReplica(Topic only, int index, ReplicaAction action) {
        for (Topic topic : only == null ? cluster.metadata().topics() : List.of(only)) {
            for (Partition partition : topic.partitions()) {
                if (index >= 0 && partition.index() != index) {
                    continue;
                }
                for (int broker : partition.replicas()) {
                    PartitionLog log = partition.log(broker);
                    EffectiveTopicConfig configs = cluster.metadata().effectiveConfig(topic, broker);
                    if (log != null && configs.compact()) {
                        action.accept(partition, broker, log, configs.compactionConfig());
                    }
                }
            }
        }
    }
}
