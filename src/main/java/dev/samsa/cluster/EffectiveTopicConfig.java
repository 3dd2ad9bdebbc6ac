package dev.samsa.cluster;

import static org.apache.kafka.common.config.TopicConfig.*;

import dev.samsa.log.LogConfig;
import dev.samsa.log.cleaner.CompactionConfig;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.record.TimestampType;

/**
 * A topic's configs as one broker applies them: the topic's overrides, else that broker's setting of the backing broker
 * config, else Kafka's default; parsed once, as Kafka's LogConfig is, and built again when either side changes
 * (IncrementalAlterConfigs on the topic or on a broker).
 */
public final class EffectiveTopicConfig {

    /** Every topic config, parsed: what DescribeConfigs shows. */
    private final Map<String, Object> parsed;
    private final LogConfig logConfig;
    private final List<String> cleanupPolicy;
    private final int minInsyncReplicas;
    private final boolean uncleanLeaderElectionEnable;
    private final long retentionMs;
    private final long retentionBytes;
    private final CompactionConfig compactionConfig;

    /** @param props values by topic config name, validated; a name left out takes Kafka's default */
    EffectiveTopicConfig(Map<String, String> props) {
        AbstractConfig config = new AbstractConfig(TopicConfigs.DEF, props, false);
        this.parsed = Map.copyOf(config.values());
        this.cleanupPolicy = List.copyOf(config.getList(CLEANUP_POLICY_CONFIG));
        this.minInsyncReplicas = config.getInt(MIN_IN_SYNC_REPLICAS_CONFIG);
        this.uncleanLeaderElectionEnable = config.getBoolean(UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG);
        this.retentionMs = config.getLong(RETENTION_MS_CONFIG);
        this.retentionBytes = config.getLong(RETENTION_BYTES_CONFIG);
        this.compactionConfig = new CompactionConfig(
                config.getDouble(MIN_CLEANABLE_DIRTY_RATIO_CONFIG),
                config.getLong(MIN_COMPACTION_LAG_MS_CONFIG),
                config.getLong(MAX_COMPACTION_LAG_MS_CONFIG),
                config.getLong(DELETE_RETENTION_MS_CONFIG),
                config.getInt(SEGMENT_BYTES_CONFIG));
        this.logConfig = new LogConfig(
                config.getInt(SEGMENT_BYTES_CONFIG),
                config.getLong(SEGMENT_MS_CONFIG),
                config.getInt(MAX_MESSAGE_BYTES_CONFIG),
                "LogAppendTime".equals(config.getString(MESSAGE_TIMESTAMP_TYPE_CONFIG))
                        ? TimestampType.LOG_APPEND_TIME : TimestampType.CREATE_TIME,
                config.getLong(FLUSH_MESSAGES_INTERVAL_CONFIG),
                config.getLong(FLUSH_MS_CONFIG),
                config.getInt(INDEX_INTERVAL_BYTES_CONFIG),
                cleanupPolicy.contains(CLEANUP_POLICY_COMPACT),
                config.getLong(MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG),
                config.getLong(MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG));
    }

    /** What the partition logs of the topic obey on this broker. */
    public LogConfig logConfig() {
        return logConfig;
    }

    /** What the log cleaner obeys for the topic on this broker. */
    public CompactionConfig compactionConfig() {
        return compactionConfig;
    }

    /** Whether the log cleaner compacts the topic: cleanup.policy contains "compact". */
    public boolean compact() {
        return cleanupPolicy.contains(CLEANUP_POLICY_COMPACT);
    }

    public List<String> cleanupPolicy() {
        return cleanupPolicy;
    }

    /** Whether retention and DeleteRecords may drop records: cleanup.policy contains "delete". */
    public boolean delete() {
        return cleanupPolicy.contains(CLEANUP_POLICY_DELETE);
    }

    public int minInsyncReplicas() {
        return minInsyncReplicas;
    }

    public boolean uncleanLeaderElectionEnable() {
        return uncleanLeaderElectionEnable;
    }

    public long retentionMs() {
        return retentionMs;
    }

    public long retentionBytes() {
        return retentionBytes;
    }

    /** The value of any topic config as DescribeConfigs shows it. */
    public String valueString(String name) {
        return ConfigDef.convertToString(parsed.get(name), TopicConfigs.type(name));
    }
}
