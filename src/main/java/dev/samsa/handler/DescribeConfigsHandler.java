package dev.samsa.handler;

import dev.samsa.cluster.BrokerConfigs;
import dev.samsa.cluster.BrokerInfo;
import dev.samsa.cluster.ClusterMetadata;
import dev.samsa.cluster.Topic;
import dev.samsa.cluster.TopicConfigs;
import dev.samsa.wire.KafkaRequest;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsRequestData.DescribeConfigsResource;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResourceResult;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResult;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsSynonym;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.common.requests.DescribeConfigsResponse.ConfigSource;
import org.apache.kafka.common.requests.DescribeConfigsResponse.ConfigType;

/**
 * DescribeConfigs v1-4, for TOPIC and BROKER resources (others get INVALID_REQUEST), as Kafka's ConfigHelper answers.
 * configurationKeys filters by name (null or empty: all); synonyms (v1+) and documentation (v3+) only when asked.
 * <ul>
 * <li>Topic: every topic config, its effective value on the receiving broker; source TOPIC_CONFIG (shown by the
 * admin client as DYNAMIC_TOPIC_CONFIG) for an override, else the source of the broker config that supplies the
 * default. Synonyms: the override, then that broker config at each level that sets it (dynamic per broker, dynamic
 * cluster default, static, Kafka's default). A missing topic gets UNKNOWN_TOPIC_OR_PARTITION.</li>
 * <li>Broker "N" (any live broker, Kafka only accepts the receiving one): every broker config Samsa knows, read-only
 * as Kafka marks them. Broker "": the cluster-wide dynamic defaults only. A non-numeric or unknown id gets
 * INVALID_REQUEST.</li>
 * </ul>
 * Not implemented: BROKER_LOGGER, GROUP and CLIENT_METRICS resources; Kafka's alias names (log.retention.hours,
 * ...); the type and documentation of broker-only configs (UNKNOWN and null); authorization.
 */
final class DescribeConfigsHandler implements ApiHandler {

    /** Broker configs whose Kafka default is null (an alias supplies it), so Kafka lists no DEFAULT_CONFIG synonym. */
    private static final Set<String> NO_KAFKA_DEFAULT = Set.of("log.retention.ms", "log.roll.ms", "log.roll.jitter.ms",
            "log.flush.interval.ms");

    /** Kafka's documentation of each topic config, from kafka-clients' TopicConfig (X_CONFIG and X_DOC). */
    private static final Map<String, String> TOPIC_DOCS = topicDocs();

    /** Kafka's defaults: a BrokerConfigs with nothing set describes every name from DEFAULT_CONFIG. */
    private static final BrokerConfigs KAFKA_DEFAULTS = new BrokerConfigs(Map.of(), new HashMap<>());

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.DESCRIBE_CONFIGS;
    }

    @Override
    public void handle(KafkaRequest request, BrokerContext broker) {
        DescribeConfigsRequestData data = request.data();
        DescribeConfigsResponseData response = new DescribeConfigsResponseData();
        for (DescribeConfigsResource resource : data.resources()) {
            DescribeConfigsResult result;
            try {
                result = describe(resource, data.includeSynonyms(), data.includeDocumentation(), broker);
            } catch (ApiException e) {
                ApiError error = ApiError.fromThrowable(e);
                result = new DescribeConfigsResult().setErrorCode(error.error().code()).setErrorMessage(KafkaRequest.fitErrorMessage(error.message()));
            }
            response.results().add(result.setResourceType(resource.resourceType()).setResourceName(resource.resourceName()));
        }
        request.respond(response);
    }

    private static DescribeConfigsResult describe(DescribeConfigsResource resource, boolean synonyms, boolean docs,
                                                  BrokerContext broker) {
        ClusterMetadata metadata = broker.cluster().metadata();
        List<DescribeConfigsResourceResult> entries;
        switch (ConfigResource.Type.forId(resource.resourceType())) {
            case TOPIC -> {
                org.apache.kafka.common.internals.Topic.validate(resource.resourceName());
                Topic topic = metadata.topic(resource.resourceName());
                if (topic == null) {
                    return new DescribeConfigsResult().setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
                }
                entries = topicEntries(topic.configs(), metadata.effectiveConfigs(topic, broker.brokerId()), broker.configs(),
                        synonyms, docs);
            }
            case BROKER -> entries = brokerEntries(resource.resourceName(), metadata, synonyms);
            default -> throw new InvalidRequestException("Unsupported resource type: "
                    + ConfigResource.Type.forId(resource.resourceType()));
        }
        List<String> keys = resource.configurationKeys();
        if (keys != null && !keys.isEmpty()) {
            entries.removeIf(e -> !keys.contains(e.name()));
        }
        return new DescribeConfigsResult().setErrorCode(Errors.NONE.code()).setConfigs(entries);
    }

    /** Every topic config with its effective value and source, sorted by name; also used by CreateTopics v5+. */
    static List<DescribeConfigsResourceResult> topicEntries(Map<String, String> overrides, Map<String, Object> effective,
                                                            BrokerConfigs broker, boolean includeSynonyms, boolean docs) {
        List<DescribeConfigsResourceResult> entries = new ArrayList<>();
        for (String name : new TreeSet<>(effective.keySet())) {
            String value = TopicConfigs.asString(name, effective.get(name));
            List<DescribeConfigsSynonym> all = new ArrayList<>();
            if (overrides.containsKey(name)) {
                all.add(synonym(name, value, ConfigSource.TOPIC_CONFIG));
            }
            all.addAll(brokerSynonyms(TopicConfigs.serverDefaultProperty(name), broker, true));
            entries.add(new DescribeConfigsResourceResult()
                    .setName(name)
                    .setValue(value)
                    .setReadOnly(false)
                    .setIsSensitive(false)
                    .setConfigSource(all.isEmpty() ? ConfigSource.DEFAULT_CONFIG.id() : all.get(0).source())
                    .setSynonyms(includeSynonyms ? all : new ArrayList<>())
                    .setConfigType(typeOf(effective.get(name)).id())
                    .setDocumentation(docs ? TOPIC_DOCS.get(name) : null));
        }
        return entries;
    }

    private static List<DescribeConfigsResourceResult> brokerEntries(String resourceName, ClusterMetadata metadata,
                                                                     boolean includeSynonyms) {
        BrokerConfigs configs;
        Set<String> names;
        boolean perBroker = !resourceName.isEmpty();
        if (perBroker) {
            configs = metadata.brokerConfigs(brokerId(resourceName, metadata));
            names = new TreeSet<>(BrokerConfigs.names());
        } else {
            // Kafka describes only what is set as cluster-wide dynamic default; every broker shares that map.
            configs = metadata.controllerConfigs();
            names = new TreeSet<>(configs.dynamicClusterDefaults().keySet());
        }
        Map<String, String> typeSources = new HashMap<>();
        for (String topicConfig : TopicConfigs.names()) {
            typeSources.put(TopicConfigs.serverDefaultProperty(topicConfig), topicConfig);
        }
        Map<String, Object> topicDefaults = TopicConfigs.effective(Map.of(), KAFKA_DEFAULTS);
        List<DescribeConfigsResourceResult> entries = new ArrayList<>();
        for (String name : names) {
            List<DescribeConfigsSynonym> all = brokerSynonyms(name, configs, perBroker);
            String topicConfig = typeSources.get(name);
            entries.add(new DescribeConfigsResourceResult()
                    .setName(name)
                    .setValue(perBroker ? configs.get(name) : configs.dynamicClusterDefaults().get(name))
                    .setReadOnly(BrokerConfigs.isReadOnly(name))
                    .setIsSensitive(false)
                    .setConfigSource(all.isEmpty() ? ConfigSource.DEFAULT_CONFIG.id() : all.get(0).source())
                    .setSynonyms(includeSynonyms ? all : new ArrayList<>())
                    .setConfigType(topicConfig == null ? ConfigType.UNKNOWN.id() : typeOf(topicDefaults.get(topicConfig)).id()));
        }
        return entries;
    }

    /**
     * @throws InvalidRequestException when the name is not the id of a live broker
     */
    private static int brokerId(String resourceName, ClusterMetadata metadata) {
        int id;
        try {
            id = Integer.parseInt(resourceName);
        } catch (NumberFormatException e) {
            throw new InvalidRequestException("Broker id must be an integer, but it is: " + resourceName);
        }
        if (metadata.liveBrokers().stream().map(BrokerInfo::id).noneMatch(b -> b == id)) {
            throw new InvalidRequestException("Unexpected broker id, expected one of "
                    + metadata.liveBrokers().stream().map(BrokerInfo::id).toList() + " or empty string, but received " + resourceName);
        }
        return id;
    }

    /**
     * A broker config at every level that sets it, most specific first, as Kafka's ConfigHelper.configSynonyms lists
     * them; a cluster-level describe keeps only the dynamic default.
     */
    private static List<DescribeConfigsSynonym> brokerSynonyms(String name, BrokerConfigs configs, boolean perBroker) {
        List<DescribeConfigsSynonym> synonyms = new ArrayList<>();
        if (perBroker && configs.dynamicBrokerConfigs().containsKey(name)) {
            synonyms.add(synonym(name, configs.dynamicBrokerConfigs().get(name), ConfigSource.DYNAMIC_BROKER_CONFIG));
        }
        if (configs.dynamicClusterDefaults().containsKey(name)) {
            synonyms.add(synonym(name, configs.dynamicClusterDefaults().get(name), ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG));
        }
        if (!perBroker) {
            return synonyms;
        }
        BrokerConfigs.Value winner = configs.describe(name);
        if (winner.source() == BrokerConfigs.Source.STATIC_BROKER_CONFIG) {
            synonyms.add(synonym(name, winner.value(), ConfigSource.STATIC_BROKER_CONFIG));
        }
        String kafkaDefault = KAFKA_DEFAULTS.get(name);
        if (kafkaDefault != null && !NO_KAFKA_DEFAULT.contains(name)) {
            synonyms.add(synonym(name, kafkaDefault, ConfigSource.DEFAULT_CONFIG));
        }
        return synonyms;
    }

    private static DescribeConfigsSynonym synonym(String name, String value, ConfigSource source) {
        return new DescribeConfigsSynonym().setName(name).setValue(value).setSource(source.id());
    }

    /** The type of a value ConfigDef parsed, which is how the ConfigDef type shows through TopicConfigs. */
    private static ConfigType typeOf(Object parsed) {
        if (parsed instanceof Boolean) {
            return ConfigType.BOOLEAN;
        } else if (parsed instanceof Short) {
            return ConfigType.SHORT;
        } else if (parsed instanceof Integer) {
            return ConfigType.INT;
        } else if (parsed instanceof Long) {
            return ConfigType.LONG;
        } else if (parsed instanceof Double) {
            return ConfigType.DOUBLE;
        } else if (parsed instanceof List) {
            return ConfigType.LIST;
        } else if (parsed instanceof String) {
            return ConfigType.STRING;
        }
        return ConfigType.UNKNOWN;
    }

    private static Map<String, String> topicDocs() {
        Map<String, String> docs = new HashMap<>();
        try {
            for (Field f : TopicConfig.class.getFields()) {
                if (Modifier.isStatic(f.getModifiers()) && f.getName().endsWith("_CONFIG") && f.getType() == String.class) {
                    String docField = f.getName().substring(0, f.getName().length() - "_CONFIG".length()) + "_DOC";
                    try {
                        docs.put((String) f.get(null), (String) TopicConfig.class.getField(docField).get(null));
                    } catch (NoSuchFieldException noDoc) {
                        // a config without its own documentation constant
                    }
                }
            }
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("kafka-clients' TopicConfig constants are not readable", e);
        }
        return docs;
    }
}
