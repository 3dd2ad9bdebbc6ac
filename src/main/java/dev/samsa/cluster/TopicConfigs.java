package dev.samsa.cluster;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.ValidString;
import org.apache.kafka.common.config.ConfigException;

/**
 * The topic-level configs Kafka knows, each with the broker config that supplies its default (Kafka's
 * "server default property"), parsed and validated with kafka-clients' {@link ConfigDef}.
 */
public final class TopicConfigs {

    /** Topic config name to the broker config that gives its default. */
    static final Map<String, String> SERVER_DEFAULT_PROPERTY = new LinkedHashMap<>();

    static final ConfigDef DEF = new ConfigDef();

    static {
        define("cleanup.policy", "log.cleanup.policy", Type.LIST, "delete", ConfigDef.ValidList.in("compact", "delete"));
        define("compression.type", "compression.type", Type.STRING, "producer",
                ValidString.in("uncompressed", "zstd", "lz4", "snappy", "gzip", "producer"));
        define("delete.retention.ms", "log.cleaner.delete.retention.ms", Type.LONG, 86_400_000L, Range.atLeast(0));
        define("file.delete.delay.ms", "log.segment.delete.delay.ms", Type.LONG, 60_000L, Range.atLeast(0));
        define("flush.messages", "log.flush.interval.messages", Type.LONG, Long.MAX_VALUE, Range.atLeast(1));
        define("flush.ms", "log.flush.interval.ms", Type.LONG, Long.MAX_VALUE, Range.atLeast(0));
        define("index.interval.bytes", "log.index.interval.bytes", Type.INT, 4096, Range.atLeast(0));
        define("max.compaction.lag.ms", "log.cleaner.max.compaction.lag.ms", Type.LONG, Long.MAX_VALUE, Range.atLeast(1));
        define("max.message.bytes", "message.max.bytes", Type.INT, 1_048_588, Range.atLeast(0));
        define("message.timestamp.after.max.ms", "log.message.timestamp.after.max.ms", Type.LONG, 3_600_000L, Range.atLeast(0));
        define("message.timestamp.before.max.ms", "log.message.timestamp.before.max.ms", Type.LONG, Long.MAX_VALUE, Range.atLeast(0));
        define("message.timestamp.type", "log.message.timestamp.type", Type.STRING, "CreateTime",
                ValidString.in("CreateTime", "LogAppendTime"));
        define("min.cleanable.dirty.ratio", "log.cleaner.min.cleanable.ratio", Type.DOUBLE, 0.5, Range.between(0, 1));
        define("min.compaction.lag.ms", "log.cleaner.min.compaction.lag.ms", Type.LONG, 0L, Range.atLeast(0));
        define("min.insync.replicas", "min.insync.replicas", Type.INT, 1, Range.atLeast(1));
        define("preallocate", "log.preallocate", Type.BOOLEAN, false, null);
        define("retention.bytes", "log.retention.bytes", Type.LONG, -1L, null);
        define("retention.ms", "log.retention.ms", Type.LONG, 604_800_000L, Range.atLeast(-1));
        define("segment.bytes", "log.segment.bytes", Type.INT, 1_073_741_824, Range.atLeast(1024 * 1024));
        define("segment.index.bytes", "log.index.size.max.bytes", Type.INT, 10_485_760, Range.atLeast(4));
        define("segment.jitter.ms", "log.roll.jitter.ms", Type.LONG, 0L, Range.atLeast(0));
        define("segment.ms", "log.roll.ms", Type.LONG, 604_800_000L, Range.atLeast(1));
        define("unclean.leader.election.enable", "unclean.leader.election.enable", Type.BOOLEAN, false, null);
    }

    private TopicConfigs() {
    }

    private static void define(String name, String serverDefault, Type type, Object defaultValue, ConfigDef.Validator validator) {
        DEF.define(name, type, defaultValue, validator, Importance.MEDIUM, name);
        SERVER_DEFAULT_PROPERTY.put(name, serverDefault);
    }

    public static boolean isKnown(String name) {
        return SERVER_DEFAULT_PROPERTY.containsKey(name);
    }

    public static Iterable<String> names() {
        return SERVER_DEFAULT_PROPERTY.keySet();
    }

    public static String serverDefaultProperty(String name) {
        return SERVER_DEFAULT_PROPERTY.get(name);
    }

    /**
     * Checks topic overrides: known names, values of the right type and range.
     *
     * @throws ConfigException naming the first bad config
     */
    public static void validate(Map<String, String> overrides) {
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
    }

    /** The effective value of every topic config: override, else broker default, else Kafka default. */
    public static Map<String, Object> effective(Map<String, String> overrides, BrokerConfigs broker) {
        Map<String, String> props = new LinkedHashMap<>();
        for (String name : names()) {
            String fromBroker = broker.valueOrNull(serverDefaultProperty(name));
            if (fromBroker != null) {
                props.put(name, fromBroker);
            }
        }
        props.putAll(overrides);
        return DEF.parse(props);
    }

    public static String asString(String name, Object value) {
        return ConfigDef.convertToString(value, DEF.configKeys().get(name).type);
    }
}
