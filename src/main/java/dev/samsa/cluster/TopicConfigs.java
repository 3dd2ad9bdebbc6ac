package dev.samsa.cluster;

import static org.apache.kafka.common.config.TopicConfig.*;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.ValidString;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.InvalidConfigurationException;

/**
 * The topic-level configs Kafka knows, with Kafka's defaults and documentation (as its LogConfig defines them), each
 * with the broker config that supplies its default (Kafka's "server default property"), parsed and validated with
 * kafka-clients' {@link ConfigDef}. This is the one copy of Kafka's topic defaults; BrokerConfigs takes the defaults of
 * the broker configs that back them from here.
 */
public final class TopicConfigs {

    /** Topic config name to the broker config that gives its default. */
    private static final Map<String, String> SERVER_DEFAULT_PROPERTY = new LinkedHashMap<>();

    static final ConfigDef DEF = new ConfigDef();

    static {
        define(CLEANUP_POLICY_CONFIG, "log.cleanup.policy", Type.LIST, "delete", ConfigDef.ValidList.in("compact", "delete"),
                CLEANUP_POLICY_DOC);
        define(COMPRESSION_TYPE_CONFIG, "compression.type", Type.STRING, "producer",
                ValidString.in("uncompressed", "zstd", "lz4", "snappy", "gzip", "producer"), COMPRESSION_TYPE_DOC);
        define(DELETE_RETENTION_MS_CONFIG, "log.cleaner.delete.retention.ms", Type.LONG, 86_400_000L, Range.atLeast(0),
                DELETE_RETENTION_MS_DOC);
        define(FILE_DELETE_DELAY_MS_CONFIG, "log.segment.delete.delay.ms", Type.LONG, 60_000L, Range.atLeast(0),
                FILE_DELETE_DELAY_MS_DOC);
        define(FLUSH_MESSAGES_INTERVAL_CONFIG, "log.flush.interval.messages", Type.LONG, Long.MAX_VALUE, Range.atLeast(1),
                FLUSH_MESSAGES_INTERVAL_DOC);
        define(FLUSH_MS_CONFIG, "log.flush.interval.ms", Type.LONG, Long.MAX_VALUE, Range.atLeast(0), FLUSH_MS_DOC);
        define(INDEX_INTERVAL_BYTES_CONFIG, "log.index.interval.bytes", Type.INT, 4096, Range.atLeast(0),
                INDEX_INTERVAL_BYTES_DOC);
        define(MAX_COMPACTION_LAG_MS_CONFIG, "log.cleaner.max.compaction.lag.ms", Type.LONG, Long.MAX_VALUE, Range.atLeast(1),
                MAX_COMPACTION_LAG_MS_DOC);
        define(MAX_MESSAGE_BYTES_CONFIG, "message.max.bytes", Type.INT, 1_048_588, Range.atLeast(0), MAX_MESSAGE_BYTES_DOC);
        define(MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG, "log.message.timestamp.after.max.ms", Type.LONG, 3_600_000L,
                Range.atLeast(0), MESSAGE_TIMESTAMP_AFTER_MAX_MS_DOC);
        define(MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG, "log.message.timestamp.before.max.ms", Type.LONG, Long.MAX_VALUE,
                Range.atLeast(0), MESSAGE_TIMESTAMP_BEFORE_MAX_MS_DOC);
        define(MESSAGE_TIMESTAMP_TYPE_CONFIG, "log.message.timestamp.type", Type.STRING, "CreateTime",
                ValidString.in("CreateTime", "LogAppendTime"), MESSAGE_TIMESTAMP_TYPE_DOC);
        define(MIN_CLEANABLE_DIRTY_RATIO_CONFIG, "log.cleaner.min.cleanable.ratio", Type.DOUBLE, 0.5, Range.between(0, 1),
                MIN_CLEANABLE_DIRTY_RATIO_DOC);
        define(MIN_COMPACTION_LAG_MS_CONFIG, "log.cleaner.min.compaction.lag.ms", Type.LONG, 0L, Range.atLeast(0),
                MIN_COMPACTION_LAG_MS_DOC);
        define(MIN_IN_SYNC_REPLICAS_CONFIG, "min.insync.replicas", Type.INT, 1, Range.atLeast(1), MIN_IN_SYNC_REPLICAS_DOC);
        define(PREALLOCATE_CONFIG, "log.preallocate", Type.BOOLEAN, false, null, PREALLOCATE_DOC);
        define(RETENTION_BYTES_CONFIG, "log.retention.bytes", Type.LONG, -1L, null, RETENTION_BYTES_DOC);
        define(RETENTION_MS_CONFIG, "log.retention.ms", Type.LONG, 604_800_000L, Range.atLeast(-1), RETENTION_MS_DOC);
        define(SEGMENT_BYTES_CONFIG, "log.segment.bytes", Type.INT, 1_073_741_824, Range.atLeast(1024 * 1024),
                SEGMENT_BYTES_DOC);
        define(SEGMENT_INDEX_BYTES_CONFIG, "log.index.size.max.bytes", Type.INT, 10_485_760, Range.atLeast(4),
                SEGMENT_INDEX_BYTES_DOC);
        define(SEGMENT_JITTER_MS_CONFIG, "log.roll.jitter.ms", Type.LONG, 0L, Range.atLeast(0), SEGMENT_JITTER_MS_DOC);
        define(SEGMENT_MS_CONFIG, "log.roll.ms", Type.LONG, 604_800_000L, Range.atLeast(1), SEGMENT_MS_DOC);
        define(UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG, "unclean.leader.election.enable", Type.BOOLEAN, false, null,
                UNCLEAN_LEADER_ELECTION_ENABLE_DOC);
    }

    private TopicConfigs() {
    }

    private static void define(String name, String serverDefault, Type type, Object defaultValue,
                               ConfigDef.Validator validator, String documentation) {
        DEF.define(name, type, defaultValue, validator, Importance.MEDIUM, documentation);
        SERVER_DEFAULT_PROPERTY.put(name, serverDefault);
    }

    static boolean isKnown(String name) {
        return SERVER_DEFAULT_PROPERTY.containsKey(name);
    }

    static Set<String> names() {
        return SERVER_DEFAULT_PROPERTY.keySet();
    }

    static String serverDefaultProperty(String name) {
        return SERVER_DEFAULT_PROPERTY.get(name);
    }

    /** The topic config a broker config supplies the default of, or null. */
    static String topicConfigOf(String brokerConfig) {
        for (Map.Entry<String, String> e : SERVER_DEFAULT_PROPERTY.entrySet()) {
            if (e.getValue().equals(brokerConfig)) {
                return e.getKey();
            }
        }
        return null;
    }

    static Type type(String name) {
        return DEF.configKeys().get(name).type;
    }

    static String documentation(String name) {
        return DEF.configKeys().get(name).documentation;
    }

    /** Kafka's default, as DescribeConfigs shows it. */
    static String kafkaDefault(String name) {
        ConfigDef.ConfigKey key = DEF.configKeys().get(name);
        return ConfigDef.convertToString(key.defaultValue, key.type);
    }

    /**
     * Checks topic overrides: known names, values of the right type and range.
     *
     * @throws InvalidConfigurationException naming the first bad config, with ConfigDef's message
     */
    public static void validate(Map<String, String> overrides) {
        try {
            for (Map.Entry<String, String> e : overrides.entrySet()) {
                if (!isKnown(e.getKey())) {
                    throw new ConfigException("Unknown topic config name: " + e.getKey());
                }
                if (e.getValue() == null) {
                    throw new ConfigException("Null value not supported for topic config " + e.getKey());
                }
                ConfigDef.ConfigKey key = DEF.configKeys().get(e.getKey());
                Object parsed = ConfigDef.parseType(key.name, e.getValue().trim(), key.type);
                if (key.validator != null) {
                    key.validator.ensureValid(key.name, parsed);
                }
            }
        } catch (ConfigException e) {
            throw new InvalidConfigurationException(e.getMessage());
        }
    }

    /** The effective value of every topic config: override, else broker default, else Kafka default. */
    public static EffectiveTopicConfig effective(Map<String, String> overrides, BrokerConfigs broker) {
        Map<String, String> props = new LinkedHashMap<>();
        for (String name : names()) {
            String fromBroker = broker.valueOrNull(serverDefaultProperty(name));
            if (fromBroker != null) {
                props.put(name, fromBroker);
            }
        }
        props.putAll(overrides);
        return new EffectiveTopicConfig(props);
    }

    static boolean isList(String name) {
        return isKnown(name) && type(name) == Type.LIST;
    }
}
