package dev.samsa.cluster;

import static org.apache.kafka.common.config.TopicConfig.*;

import dev.samsa.log.LogConfig;
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

    private final AbstractConfig values;
    private final LogConfig logConfig;

    /** @param props values by topic config name, validated; a name left out takes Kafka's default */
    EffectiveTopicConfig(Map<String, String> props) {
        this.values = new AbstractConfig(TopicConfigs.DEF, props, false);
        this.logConfig = new LogConfig(
                values.getInt(SEGMENT_BYTES_CONFIG),
                values.getLong(SEGMENT_MS_CONFIG),
                values.getInt(MAX_MESSAGE_BYTES_CONFIG),
                "LogAppendTime".equals(values.getString(MESSAGE_TIMESTAMP_TYPE_CONFIG))
                        ? TimestampType.LOG_APPEND_TIME : TimestampType.CREATE_TIME,
                values.getLong(FLUSH_MESSAGES_INTERVAL_CONFIG),
                values.getLong(FLUSH_MS_CONFIG),
                values.getInt(INDEX_INTERVAL_BYTES_CONFIG),
                cleanupPolicy().contains(CLEANUP_POLICY_COMPACT),
                values.getLong(MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG),
                values.getLong(MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG));
    }

    /** What the partition logs of the topic obey on this broker. */
    public LogConfig logConfig() {
        return logConfig;
    }

    public List<String> cleanupPolicy() {
        return values.getList(CLEANUP_POLICY_CONFIG);
    }

    /** Whether retention and DeleteRecords may drop records: cleanup.policy contains "delete". */
    public boolean delete() {
        return cleanupPolicy().contains(CLEANUP_POLICY_DELETE);
    }

    public int minInsyncReplicas() {
        return values.getInt(MIN_IN_SYNC_REPLICAS_CONFIG);
    }

    public boolean uncleanLeaderElectionEnable() {
        return values.getBoolean(UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG);
    }

    public long retentionMs() {
        return values.getLong(RETENTION_MS_CONFIG);
    }

    public long retentionBytes() {
        return values.getLong(RETENTION_BYTES_CONFIG);
    }

    /** The value of any topic config as DescribeConfigs shows it. */
    public String valueString(String name) {
        return ConfigDef.convertToString(values.values().get(name), TopicConfigs.type(name));
    }
}
