package dev.samsa.handler;

import dev.samsa.cluster.ClusterMetadata;
import dev.samsa.cluster.ConfigEntry;
import dev.samsa.cluster.ConfigHelper;
import dev.samsa.cluster.ReplicaAssignment;
import dev.samsa.cluster.Topic;
import dev.samsa.cluster.TopicConfigs;
import dev.samsa.wire.KafkaRequest;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableReplicaAssignment;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopic;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopicConfig;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicConfigs;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.common.resource.ResourceType;

/**
 * CreateTopics v2-7, as Kafka's controller answers it: each topic on its own, with the error and message Kafka gives
 * (INVALID_TOPIC_EXCEPTION, TOPIC_ALREADY_EXISTS, INVALID_CONFIG, INVALID_PARTITIONS, INVALID_REPLICATION_FACTOR,
 * INVALID_REPLICA_ASSIGNMENT, INVALID_REQUEST). A name given twice gets INVALID_REQUEST "Duplicate topic name." at the
 * end of the response, and neither copy is created. validateOnly (v1+) checks everything and creates nothing.
 * Topics are created at once, so timeoutMs is not waited on. A request for more than 10,000 partitions in all gets
 * POLICY_VIOLATION "Excessively large number of partitions per request." for every topic, as Kafka answers it.
 * <ul>
 * <li>v5+: numPartitions, replicationFactor and the effective configs (sorted by name, with their sources as the
 * controller computes them) of each topic created.</li>
 * <li>v7: the topic id (zero for validateOnly, where Kafka sends an id it then forgets).</li>
 * </ul>
 * Not implemented: CreateTopicPolicy, controller mutation quotas (v6 THROTTLING_QUOTA_EXCEEDED), authorization.
 */
final class CreateTopicsHandler implements ApiHandler {

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.CREATE_TOPICS;
    }

    @Override
    public void handle(KafkaRequest request, BrokerContext broker) {
        CreateTopicsRequestData data = request.data();
        Set<String> seen = new HashSet<>();
        Set<String> duplicates = new LinkedHashSet<>();
        for (CreatableTopic t : data.topics()) {
            if (!seen.add(t.name())) {
                duplicates.add(t.name());
            }
        }
        CreateTopicsResponseData response = new CreateTopicsResponseData();
        boolean tooMany = totalPartitions(data, broker) > ClusterMetadata.MAX_PARTITIONS_PER_REQUEST;
        for (CreatableTopic t : data.topics()) {
            if (tooMany) {
                // Kafka's controller refuses the whole request before placing a single replica.
                response.topics().add(new CreatableTopicResult().setName(t.name())
                        .setErrorCode(Errors.POLICY_VIOLATION.code()).setErrorMessage(ClusterMetadata.TOO_MANY_PARTITIONS));
            } else if (!duplicates.contains(t.name()) && !mayCreate(request, broker, t.name())) {
                response.topics().add(new CreatableTopicResult().setName(t.name())
                        .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code()).setErrorMessage("Authorization failed."));
            } else if (!duplicates.contains(t.name())) {
                response.topics().add(create(t, data.validateOnly(), broker));
            }
        }
        if (tooMany) {
            request.respond(response);
            return;
        }
        for (String name : duplicates) {
            response.topics().add(new CreatableTopicResult().setName(name)
                    .setErrorCode(Errors.INVALID_REQUEST.code()).setErrorMessage("Duplicate topic name."));
        }
        request.respond(response);
    }

    /** As Kafka: CREATE on the cluster, or else on the topic. */
    private static boolean mayCreate(KafkaRequest request, BrokerContext broker, String topic) {
        return broker.authorizedQuietly(request, AclOperation.CREATE, ResourceType.CLUSTER, Acls.CLUSTER_NAME)
                || broker.authorized(request, AclOperation.CREATE, ResourceType.TOPIC, topic);
    }

    /**
     * Partitions the request asks for, as Kafka's {@code ReplicationControlManager.validateTotalNumberOfPartitions}
     * counts them: the assignments given, else numPartitions, else num.partitions; summed as a long so that two
     * topics of 2^31-1 partitions do not wrap.
     */
    private static long totalPartitions(CreateTopicsRequestData data, BrokerContext broker) {
        long total = 0;
        for (CreatableTopic t : data.topics()) {
            if (!t.assignments().isEmpty()) {
                total += t.assignments().size();
            } else if (t.numPartitions() == -1) {
                total += broker.cluster().metadata().controllerConfigs().getInt("num.partitions");
            } else if (t.numPartitions() > 0) {
                total += t.numPartitions();
            }
        }
        return total;
    }

    private static CreatableTopicResult create(CreatableTopic t, boolean validateOnly, BrokerContext broker) {
        ClusterMetadata metadata = broker.cluster().metadata();
        try {
            Map<String, String> configs = configs(t);
            Topic topic = metadata.createTopic(t.name(), t.numPartitions(), t.replicationFactor(), assignments(t), configs,
                    validateOnly);
            CreatableTopicResult result = new CreatableTopicResult().setName(t.name()).setTopicId(topic.id())
                    .setErrorCode(Errors.NONE.code())
                    .setNumPartitions(topic.partitions().size())
                    .setReplicationFactor((short) topic.replicationFactor())
                    .setTopicConfigErrorCode(Errors.NONE.code());
            List<CreatableTopicConfigs> resultConfigs = new ArrayList<>();
            for (ConfigEntry e : ConfigHelper.describeTopic(configs,
                    TopicConfigs.effective(configs, metadata.controllerConfigs()), metadata.controllerConfigs())) {
                resultConfigs.add(new CreatableTopicConfigs().setName(e.name()).setValue(e.value()).setReadOnly(e.readOnly())
                        .setConfigSource(DescribeConfigsHandler.source(e.source())).setIsSensitive(false));
            }
            return result.setConfigs(resultConfigs);
        } catch (ApiException e) {
            ApiError error = ApiError.fromThrowable(e);
            return new CreatableTopicResult().setName(t.name()).setErrorCode(error.error().code())
                    .setErrorMessage(KafkaRequest.fitErrorMessage(error.message()));
        }
    }

    /** @throws InvalidConfigurationException for a null, unknown or invalid value, with Kafka's message */
    private static Map<String, String> configs(CreatableTopic t) {
        Map<String, String> configs = new LinkedHashMap<>();
        List<String> nulls = new ArrayList<>();
        for (CreatableTopicConfig c : t.configs()) {
            if (c.value() == null) {
                nulls.add(c.name());
            }
            configs.put(c.name(), c.value());
        }
        if (!nulls.isEmpty()) {
            throw new InvalidConfigurationException("Null value not supported for topic configs: " + String.join(",", nulls));
        }
        // Kafka checks configs before replica assignments; ClusterMetadata would check them after.
        TopicConfigs.validate(configs);
        return configs;
    }

    private static List<ReplicaAssignment> assignments(CreatableTopic t) {
        return t.assignments().stream().map(a -> new ReplicaAssignment(a.partitionIndex(), a.brokerIds())).toList();
    }
}
