package dev.samsa.cluster;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;

/**
 * Broker configs: Kafka's defaults, the test-friendly ones DESIGN.md lists, what the builder set (static) and what
 * IncrementalAlterConfigs set later (dynamic, per broker or cluster-wide). Owned by the cluster loop.
 */
public final class BrokerConfigs {

    /** Broker configs whose Kafka default is null (an alias supplies it, such as log.retention.hours). */
    private static final Set<String> NO_KAFKA_DEFAULT = Set.of("log.retention.ms", "log.roll.ms", "log.roll.jitter.ms",
            "log.flush.interval.ms");

    /** Configs a running broker cannot change, as Kafka reports them read-only. */
    static final Set<String> READ_ONLY = Set.of("broker.id", "socket.request.max.bytes", "sasl.server.max.receive.size",
            "offsets.topic.num.partitions", "offsets.topic.replication.factor", "transaction.state.log.num.partitions",
            "transaction.state.log.replication.factor", "log.dirs", "log.cleaner.enable");

    /**
     * Samsa's test-friendly values (DESIGN.md): configured on every broker, so DescribeConfigs shows them as Kafka
     * shows a broker's configured value, STATIC_BROKER_CONFIG over Kafka's default. The builder's value wins.
     */
    private static final Map<String, String> TEST_DEFAULTS = Map.of(
            "group.initial.rebalance.delay.ms", "0",
            // Small so that a cluster starts fast.
            "offsets.topic.num.partitions", "5",
            "transaction.state.log.num.partitions", "5");

    private static final ConfigDef DEF = new ConfigDef();

    static {
        define("auto.create.topics.enable", Type.BOOLEAN, "true");
        define("auto.leader.rebalance.enable", Type.BOOLEAN, "true");
        define("broker.id", Type.INT, "-1");
        define("connections.max.reauth.ms", Type.LONG, "0");
        define("default.replication.factor", Type.INT, "1");
        define("delete.topic.enable", Type.BOOLEAN, "true");
        define("group.consumer.assignors", Type.STRING, "uniform,range");
        define("group.consumer.heartbeat.interval.ms", Type.INT, "5000");
        define("group.consumer.max.size", Type.INT, "2147483647");
        DEF.define("group.consumer.migration.policy", Type.STRING, "bidirectional",
                ConfigDef.CaseInsensitiveValidString.in("disabled", "downgrade", "upgrade", "bidirectional"), Importance.MEDIUM,
                "group.consumer.migration.policy");
        define("group.consumer.session.timeout.ms", Type.INT, "45000");
        define("group.initial.rebalance.delay.ms", Type.INT, "3000");
        define("group.max.session.timeout.ms", Type.INT, "1800000");
        define("group.max.size", Type.INT, "2147483647");
        define("group.min.session.timeout.ms", Type.INT, "6000");
        DEF.define("leader.imbalance.check.interval.seconds", Type.LONG, 300L, ConfigDef.Range.atLeast(1), Importance.HIGH,
                "leader.imbalance.check.interval.seconds");
        define("leader.imbalance.per.broker.percentage", Type.INT, "10");
        define("log.cleaner.backoff.ms", Type.LONG, "15000");
        define("log.cleaner.enable", Type.BOOLEAN, "true");
        define("log.retention.check.interval.ms", Type.LONG, "300000");
        define("max.request.partition.size.limit", Type.INT, "2000");
        define("num.partitions", Type.INT, "1");
        define("offsets.commit.timeout.ms", Type.INT, "5000");
        define("offsets.retention.check.interval.ms", Type.LONG, "600000");
        define("offsets.retention.minutes", Type.INT, "10080");
        define("offsets.topic.num.partitions", Type.INT, "50");
        define("offsets.topic.replication.factor", Type.SHORT, "3");
        DEF.define("producer.id.expiration.check.interval.ms", Type.INT, 600000, ConfigDef.Range.atLeast(1),
                Importance.LOW, "producer.id.expiration.check.interval.ms");
        DEF.define("producer.id.expiration.ms", Type.INT, 86400000, ConfigDef.Range.atLeast(1), Importance.LOW,
                "producer.id.expiration.ms");
        define("replica.lag.time.max.ms", Type.LONG, "30000");
        define("sasl.server.max.receive.size", Type.INT, "524288");
        DEF.define("socket.request.max.bytes", Type.INT, 104857600, ConfigDef.Range.atLeast(1), Importance.HIGH,
                "socket.request.max.bytes");
        define("request.timeout.ms", Type.INT, "30000");
        define("transaction.abort.timed.out.transaction.cleanup.interval.ms", Type.INT, "10000");
        define("transaction.max.timeout.ms", Type.INT, "900000");
        DEF.define("transactional.id.expiration.ms", Type.INT, 604800000, ConfigDef.Range.atLeast(1), Importance.HIGH,
                "transactional.id.expiration.ms");
        define("transaction.partition.verification.enable", Type.BOOLEAN, "true");
        define("transaction.state.log.min.isr", Type.INT, "2");
        define("transaction.state.log.num.partitions", Type.INT, "50");
        define("transaction.state.log.replication.factor", Type.SHORT, "3");
        for (String topicConfig : TopicConfigs.names()) {
            String brokerName = TopicConfigs.serverDefaultProperty(topicConfig);
            if (!DEF.names().contains(brokerName)) {
                ConfigDef.ConfigKey key = TopicConfigs.DEF.configKeys().get(topicConfig);
                DEF.define(brokerName, key.type, key.defaultValue, key.validator, Importance.MEDIUM, brokerName);
            }
        }
    }

    private static void define(String name, Type type, String defaultValue) {
        DEF.define(name, type, defaultValue, Importance.MEDIUM, name);
    }

    private final Map<String, String> staticConfigs;
    private final Map<String, String> dynamicClusterDefaults;
    private final Map<String, String> dynamicBrokerConfigs = new LinkedHashMap<>();

    /**
     * @param staticConfigs what the cluster was built with
     * @param dynamicClusterDefaults shared by every broker of the cluster, changed through the resource name ""
     * @throws ConfigException naming an unknown or invalid config
     */
    public BrokerConfigs(Map<String, String> staticConfigs, Map<String, String> dynamicClusterDefaults) {
        staticConfigs.forEach(BrokerConfigs::validate);
        Map<String, String> configured = new LinkedHashMap<>(TEST_DEFAULTS);
        configured.putAll(staticConfigs);
        this.staticConfigs = Map.copyOf(configured);
        this.dynamicClusterDefaults = dynamicClusterDefaults;
    }

    static boolean isKnown(String name) {
        return DEF.names().contains(name);
    }

    static Set<String> names() {
        return DEF.names();
    }

    /**
     * Kafka's own default of a known config, as its DEFAULT_CONFIG synonym shows it; null where Kafka has none, though
     * Samsa then describes the value the alias gives.
     */
    static String kafkaDefault(String name) {
        ConfigDef.ConfigKey key = DEF.configKeys().get(name);
        if (key.defaultValue == null || NO_KAFKA_DEFAULT.contains(name)) {
            return null;
        }
        return ConfigDef.convertToString(key.defaultValue, key.type);
    }

    static Type type(String name) {
        return DEF.configKeys().get(name).type;
    }

    static boolean isReadOnly(String name) {
        return READ_ONLY.contains(name);
    }

    public static void validate(String name, String value) {
        ConfigDef.ConfigKey key = DEF.configKeys().get(name);
        if (key == null) {
            throw new ConfigException("Unknown broker config name: " + name);
        }
        if (value == null) {
            throw new ConfigException("Null value not supported for broker config " + name);
        }
        Object parsed = ConfigDef.parseType(name, value.trim(), key.type);
        if (key.validator != null) {
            key.validator.ensureValid(name, parsed);
        }
    }

    /** A broker config's value and where it comes from. */
    record Value(String name, String value, ConfigEntry.Source source) {
    }

    Value describe(String name) {
        if (dynamicBrokerConfigs.containsKey(name)) {
            return new Value(name, dynamicBrokerConfigs.get(name), ConfigEntry.Source.DYNAMIC_BROKER_CONFIG);
        }
        if (dynamicClusterDefaults.containsKey(name)) {
            return new Value(name, dynamicClusterDefaults.get(name), ConfigEntry.Source.DYNAMIC_DEFAULT_BROKER_CONFIG);
        }
        if (staticConfigs.containsKey(name)) {
            return new Value(name, staticConfigs.get(name), ConfigEntry.Source.STATIC_BROKER_CONFIG);
        }
        ConfigDef.ConfigKey key = DEF.configKeys().get(name);
        String value = key.defaultValue == null ? null : ConfigDef.convertToString(key.defaultValue, key.type);
        return new Value(name, value, ConfigEntry.Source.DEFAULT_CONFIG);
    }

    /** The value set anywhere but Kafka's own default, or null: what a topic falls back to before Kafka's default. */
    String valueOrNull(String name) {
        Value v = describe(name);
        return v.source == ConfigEntry.Source.DEFAULT_CONFIG ? null : v.value;
    }

    public String get(String name) {
        return describe(name).value;
    }

    public int getInt(String name) {
        return Integer.parseInt(get(name).trim());
    }

    public long getLong(String name) {
        return Long.parseLong(get(name).trim());
    }

    public boolean getBoolean(String name) {
        return Boolean.parseBoolean(get(name).trim());
    }

    /** What the broker was configured with: the builder's configs over Samsa's test defaults. */
    Map<String, String> staticConfigs() {
        return staticConfigs;
    }

    Map<String, String> dynamicBrokerConfigs() {
        return dynamicBrokerConfigs;
    }

    Map<String, String> dynamicClusterDefaults() {
        return dynamicClusterDefaults;
    }
}
