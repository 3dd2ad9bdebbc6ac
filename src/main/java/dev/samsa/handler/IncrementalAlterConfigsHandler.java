package dev.samsa.handler;

import dev.samsa.cluster.BrokerConfigs;
import dev.samsa.cluster.BrokerInfo;
import dev.samsa.cluster.ClusterMetadata;
import dev.samsa.cluster.Topic;
import dev.samsa.cluster.TopicConfigs;
import dev.samsa.wire.KafkaRequest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.admin.AlterConfigOp.OpType;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterConfigsResource;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterableConfig;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.ApiError;

/**
 * IncrementalAlterConfigs v0-1: SET, DELETE, APPEND and SUBTRACT (APPEND/SUBTRACT only on LIST configs) on TOPIC and
 * BROKER resources, each resource all or nothing, with the errors Kafka gives:
 * <ul>
 * <li>Any resource: named twice → INVALID_REQUEST "Each resource must appear at most once."; a config named twice or
 * a null value outside DELETE → INVALID_REQUEST.</li>
 * <li>Topic (the controller's checks): APPEND/SUBTRACT on a non-list → INVALID_CONFIG; an unknown name or a bad value
 * → INVALID_CONFIG with the ConfigDef message; then a missing topic → UNKNOWN_TOPIC_OR_PARTITION. APPEND/SUBTRACT
 * start from Kafka's topic default when the topic has no override.</li>
 * <li>Broker "" (cluster-wide dynamic default) or "N" (that broker's dynamic config; Kafka accepts only the receiving
 * broker, Samsa any live one): APPEND/SUBTRACT on a non-list → INVALID_CONFIG; a read-only config ("Cannot update
 * these configs dynamically"), an unknown name or a bad value → INVALID_REQUEST, which is what Kafka answers
 * (KAFKA-13609).</li>
 * </ul>
 * validateOnly checks and changes nothing. A change reaches every log at once (ClusterMetadata).
 * Not implemented: BROKER_LOGGER, GROUP and CLIENT_METRICS resources, AlterConfigPolicy, custom (unknown) broker
 * configs, authorization.
 */
final class IncrementalAlterConfigsHandler implements ApiHandler {

    /** Kafka's defaults: a BrokerConfigs with nothing set. */
    private static final BrokerConfigs KAFKA_DEFAULTS = new BrokerConfigs(Map.of(), new HashMap<>());

    /** Kafka's topic defaults, parsed: a LIST config's value is a List. */
    private static final Map<String, Object> TOPIC_DEFAULTS = TopicConfigs.effective(Map.of(), KAFKA_DEFAULTS);

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.INCREMENTAL_ALTER_CONFIGS;
    }

    @Override
    public void handle(KafkaRequest request, BrokerContext broker) {
        IncrementalAlterConfigsRequestData data = request.data();
        Map<String, Integer> counts = new HashMap<>();
        data.resources().forEach(r -> counts.merge(r.resourceType() + "/" + r.resourceName(), 1, Integer::sum));
        IncrementalAlterConfigsResponseData response = new IncrementalAlterConfigsResponseData();
        for (AlterConfigsResource resource : data.resources()) {
            ApiError error = ApiError.NONE;
            try {
                if (counts.get(resource.resourceType() + "/" + resource.resourceName()) > 1) {
                    throw new InvalidRequestException("Each resource must appear at most once.");
                }
                alter(resource, data.validateOnly(), broker.cluster().metadata());
            } catch (ApiException e) {
                error = ApiError.fromThrowable(e);
            }
            response.responses().add(new AlterConfigsResourceResponse().setResourceType(resource.resourceType())
                    .setResourceName(resource.resourceName()).setErrorCode(error.error().code()).setErrorMessage(KafkaRequest.fitErrorMessage(error.message())));
        }
        request.respond(response);
    }

    private static void alter(AlterConfigsResource resource, boolean validateOnly, ClusterMetadata metadata) {
        throwIfMalformed(resource);
        switch (ConfigResource.Type.forId(resource.resourceType())) {
            case TOPIC -> alterTopic(resource, validateOnly, metadata);
            case BROKER -> alterBroker(resource, validateOnly, metadata);
            default -> throw new InvalidRequestException("Unsupported resource type "
                    + ConfigResource.Type.forId(resource.resourceType()) + " for " + resource.resourceName());
        }
    }

    /** @throws InvalidRequestException for a config named twice, an unknown operation or a null value to set */
    private static void throwIfMalformed(AlterConfigsResource resource) {
        Set<String> names = new HashSet<>();
        List<String> nulls = new ArrayList<>();
        for (AlterableConfig c : resource.configs()) {
            if (!names.add(c.name())) {
                throw new InvalidRequestException("Error due to duplicate config keys");
            }
            if (OpType.forId(c.configOperation()) == null) {
                throw new InvalidRequestException("Unknown operations type " + c.configOperation());
            }
            if (OpType.forId(c.configOperation()) != OpType.DELETE && c.value() == null) {
                nulls.add(c.name());
            }
        }
        if (!nulls.isEmpty()) {
            throw new InvalidRequestException("Null value not supported for : " + String.join(", ", nulls));
        }
    }

    private static void alterTopic(AlterConfigsResource resource, boolean validateOnly, ClusterMetadata metadata) {
        String name = resource.resourceName();
        if (name.isEmpty()) {
            throw new InvalidRequestException("Default topic resources are not allowed.");
        }
        org.apache.kafka.common.internals.Topic.validate(name);
        Topic topic = metadata.topic(name);
        Map<String, String> overrides = new LinkedHashMap<>(topic == null ? Map.of() : topic.configs());
        for (AlterableConfig c : resource.configs()) {
            OpType op = OpType.forId(c.configOperation());
            if ((op == OpType.APPEND || op == OpType.SUBTRACT) && !(TOPIC_DEFAULTS.get(c.name()) instanceof List)) {
                throw new InvalidConfigurationException("Can't " + op + " to key " + c.name() + " because its type is not LIST.");
            }
            String current = overrides.containsKey(c.name()) ? overrides.get(c.name())
                    : op == OpType.APPEND || op == OpType.SUBTRACT ? TopicConfigs.asString(c.name(), TOPIC_DEFAULTS.get(c.name())) : null;
            apply(overrides, c, op, current);
        }
        try {
            TopicConfigs.validate(overrides);
        } catch (ConfigException e) {
            throw new InvalidConfigurationException(e.getMessage());
        }
        if (topic == null) {
            throw new UnknownTopicOrPartitionException("The topic '" + name + "' does not exist.");
        }
        if (!validateOnly) {
            metadata.setTopicConfigs(topic, overrides);
        }
    }

    private static void alterBroker(AlterConfigsResource resource, boolean validateOnly, ClusterMetadata metadata) {
        String name = resource.resourceName();
        Map<String, String> target = name.isEmpty()
                ? metadata.controllerConfigs().dynamicClusterDefaults()
                : metadata.brokerConfigs(liveBrokerId(name, metadata)).dynamicBrokerConfigs();
        Map<String, String> updated = new LinkedHashMap<>(target);
        for (AlterableConfig c : resource.configs()) {
            OpType op = OpType.forId(c.configOperation());
            if (op == OpType.APPEND || op == OpType.SUBTRACT) {
                if (!BrokerConfigs.isKnown(c.name())) {
                    throw new InvalidConfigurationException("Unknown config name: " + c.name());
                }
                if (!isListConfig(c.name())) {
                    throw new InvalidConfigurationException("Config value " + op.name().toLowerCase()
                            + " is not allowed for config key: " + c.name());
                }
            }
            String current = updated.containsKey(c.name()) ? updated.get(c.name())
                    : op == OpType.APPEND || op == OpType.SUBTRACT ? KAFKA_DEFAULTS.get(c.name()) : null;
            apply(updated, c, op, current);
        }
        Set<String> readOnly = new TreeSet<>();
        updated.keySet().stream().filter(BrokerConfigs::isReadOnly).forEach(readOnly::add);
        if (!readOnly.isEmpty()) {
            throw new InvalidRequestException("Cannot update these configs dynamically: Set(" + String.join(", ", readOnly) + ")");
        }
        try {
            updated.forEach(BrokerConfigs::validate);
        } catch (ConfigException e) {
            throw new InvalidRequestException(e.getMessage());
        }
        if (!validateOnly) {
            target.clear();
            target.putAll(updated);
            metadata.brokerConfigsChanged();
        }
    }

    /** Applies one operation; {@code current} is the value APPEND and SUBTRACT start from. */
    private static void apply(Map<String, String> configs, AlterableConfig c, OpType op, String current) {
        switch (op) {
            case SET -> configs.put(c.name(), c.value());
            case DELETE -> configs.remove(c.name());
            case APPEND, SUBTRACT -> {
                List<String> values = new ArrayList<>(current == null ? List.of()
                        : Arrays.stream(current.split(",")).map(String::trim).filter(v -> !v.isEmpty()).toList());
                for (String v : c.value().split(",")) {
                    if (op == OpType.APPEND && !values.contains(v)) {
                        values.add(v);
                    } else if (op == OpType.SUBTRACT) {
                        values.remove(v);
                    }
                }
                configs.put(c.name(), String.join(",", values));
            }
        }
    }

    /** Broker list configs: those that give a LIST topic config its default. */
    private static boolean isListConfig(String brokerConfig) {
        for (String topicConfig : TopicConfigs.names()) {
            if (brokerConfig.equals(TopicConfigs.serverDefaultProperty(topicConfig))) {
                return TOPIC_DEFAULTS.get(topicConfig) instanceof List;
            }
        }
        return false;
    }

    /** @throws InvalidRequestException when the name is not the id of a live broker */
    private static int liveBrokerId(String name, ClusterMetadata metadata) {
        int id;
        try {
            id = Integer.parseInt(name);
        } catch (NumberFormatException e) {
            throw new InvalidRequestException("Node id must be an integer, but it is: " + name);
        }
        if (metadata.liveBrokers().stream().map(BrokerInfo::id).noneMatch(b -> b == id)) {
            throw new InvalidRequestException("Unexpected broker id, expected one of "
                    + metadata.liveBrokers().stream().map(BrokerInfo::id).toList() + ", but received " + name);
        }
        return id;
    }
}
