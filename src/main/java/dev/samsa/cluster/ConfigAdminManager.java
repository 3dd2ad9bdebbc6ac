package dev.samsa.cluster;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.admin.AlterConfigOp.OpType;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * IncrementalAlterConfigs on one resource, all or nothing, with the checks and errors of Kafka's ConfigAdminManager
 * and controller (ConfigurationControlManager):
 * <ul>
 * <li>Any resource: a config named twice, an unknown operation or a null value outside DELETE → INVALID_REQUEST.</li>
 * <li>Topic: APPEND/SUBTRACT on a non-list → INVALID_CONFIG; an unknown name or a bad value → INVALID_CONFIG with
 * the ConfigDef message; then a missing topic → UNKNOWN_TOPIC_OR_PARTITION. APPEND/SUBTRACT start from Kafka's
 * topic default when the topic has no override.</li>
 * <li>Broker "" (cluster-wide dynamic default) or "N" (that broker's dynamic config; Kafka accepts only the receiving
 * broker, Samsa any live one): APPEND/SUBTRACT on a non-list → INVALID_CONFIG; a read-only config ("Cannot update
 * these configs dynamically"), an unknown name or a bad value → INVALID_REQUEST, which is what Kafka answers
 * (KAFKA-13609).</li>
 * </ul>
 * validateOnly checks and changes nothing. A change reaches every log at once (ClusterMetadata).
 * Not implemented: BROKER_LOGGER, GROUP and CLIENT_METRICS resources, AlterConfigPolicy, custom (unknown) broker
 * configs.
 */
public final class ConfigAdminManager {

    /** One operation of the request; {@code operation} is the wire id of Kafka's {@link OpType}. */
    public record AlterConfigOp(String name, byte operation, String value) {
    }

    private final ClusterMetadata metadata;

    public ConfigAdminManager(ClusterMetadata metadata) {
        this.metadata = metadata;
    }

    /**
     * @throws org.apache.kafka.common.errors.ApiException the error Kafka gives for this resource
     */
    public void incrementalAlterConfigs(ConfigResource.Type type, String name, List<AlterConfigOp> ops, boolean validateOnly) {
        throwIfMalformed(ops);
        switch (type) {
            case TOPIC -> alterTopic(name, ops, validateOnly);
            case BROKER -> alterBroker(name, ops, validateOnly);
            default -> throw new InvalidRequestException("Unsupported resource type " + type + " for " + name);
        }
    }

    /**
     * The legacy AlterConfigs: the resource's dynamic configs become exactly {@code configs}, every other one deleted,
     * as Kafka's {@code legacyAlterConfigs} replaces them; checked as the incremental way checks.
     *
     * @throws org.apache.kafka.common.errors.ApiException the error Kafka gives for this resource
     */
    public void legacyAlterConfigs(ConfigResource.Type type, String name, Map<String, String> configs, boolean validateOnly) {
        Map<String, String> current = switch (type) {
            case TOPIC -> {
                Topic topic = name.isEmpty() ? null : metadata.topic(name);
                yield topic == null ? Map.of() : topic.configs();
            }
            case BROKER -> name.isEmpty() ? metadata.controllerConfigs().dynamicClusterDefaults()
                    : metadata.brokerConfigs(ConfigHelper.liveBrokerId(name, metadata, false)).dynamicBrokerConfigs();
            default -> Map.of();
        };
        List<AlterConfigOp> ops = new ArrayList<>();
        current.keySet().stream().filter(k -> !configs.containsKey(k))
                .forEach(k -> ops.add(new AlterConfigOp(k, OpType.DELETE.id(), null)));
        configs.forEach((k, v) -> ops.add(new AlterConfigOp(k, OpType.SET.id(), v)));
        incrementalAlterConfigs(type, name, ops, validateOnly);
    }

    /** @throws InvalidRequestException for a config named twice, an unknown operation or a null value to set */
    private static void throwIfMalformed(List<AlterConfigOp> ops) {
        Set<String> names = new HashSet<>();
        List<String> nulls = new ArrayList<>();
        for (AlterConfigOp c : ops) {
            if (!names.add(c.name())) {
                throw new InvalidRequestException("Error due to duplicate config keys");
            }
            if (OpType.forId(c.operation()) == null) {
                throw new InvalidRequestException("Unknown operations type " + c.operation());
            }
            if (OpType.forId(c.operation()) != OpType.DELETE && c.value() == null) {
                nulls.add(c.name());
            }
        }
        if (!nulls.isEmpty()) {
            throw new InvalidRequestException("Null value not supported for : " + String.join(", ", nulls));
        }
    }

    private void alterTopic(String name, List<AlterConfigOp> ops, boolean validateOnly) {
        if (name.isEmpty()) {
            throw new InvalidRequestException("Default topic resources are not allowed.");
        }
        org.apache.kafka.common.internals.Topic.validate(name);
        Topic topic = metadata.topic(name);
        Map<String, String> overrides = new LinkedHashMap<>(topic == null ? Map.of() : topic.configs());
        for (AlterConfigOp c : ops) {
            OpType op = OpType.forId(c.operation());
            boolean listOp = op == OpType.APPEND || op == OpType.SUBTRACT;
            if (listOp && !TopicConfigs.isList(c.name())) {
                throw new InvalidConfigurationException("Can't " + op + " to key " + c.name() + " because its type is not LIST.");
            }
            String current = overrides.containsKey(c.name()) ? overrides.get(c.name())
                    : listOp ? TopicConfigs.kafkaDefault(c.name()) : null;
            apply(overrides, c, op, current);
        }
        TopicConfigs.validate(overrides);
        if (topic == null) {
            throw new UnknownTopicOrPartitionException("The topic '" + name + "' does not exist.");
        }
        if (!validateOnly) {
            metadata.setTopicConfigs(topic, overrides);
        }
    }

    private void alterBroker(String name, List<AlterConfigOp> ops, boolean validateOnly) {
        Map<String, String> target = name.isEmpty()
                ? metadata.controllerConfigs().dynamicClusterDefaults()
                : metadata.brokerConfigs(ConfigHelper.liveBrokerId(name, metadata, false)).dynamicBrokerConfigs();
        Map<String, String> updated = new LinkedHashMap<>(target);
        for (AlterConfigOp c : ops) {
            OpType op = OpType.forId(c.operation());
            boolean listOp = op == OpType.APPEND || op == OpType.SUBTRACT;
            if (listOp) {
                if (!BrokerConfigs.isKnown(c.name())) {
                    throw new InvalidConfigurationException("Unknown config name: " + c.name());
                }
                if (!TopicConfigs.isList(TopicConfigs.topicConfigOf(c.name()))) {
                    throw new InvalidConfigurationException("Config value " + op.name().toLowerCase()
                            + " is not allowed for config key: " + c.name());
                }
            }
            String current = updated.containsKey(c.name()) ? updated.get(c.name())
                    : listOp ? BrokerConfigs.kafkaDefault(c.name()) : null;
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
    private static void apply(Map<String, String> configs, AlterConfigOp c, OpType op, String current) {
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
}
