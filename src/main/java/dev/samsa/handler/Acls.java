package dev.samsa.handler;

import dev.samsa.wire.KafkaRequest;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.resource.ResourceType;

/** What the ACL handlers share with the handlers that check ACLs. */
final class Acls {

    /** The name of the one CLUSTER resource (Kafka's CLUSTER_NAME). */
    static final String CLUSTER_NAME = "kafka-cluster";

    /** Kafka's AclEntry.supportedOperations: what authorized-operations fields report on, by resource type. */
    static final Map<ResourceType, Set<AclOperation>> SUPPORTED_OPERATIONS = Map.of(
            ResourceType.TOPIC, Set.of(AclOperation.READ, AclOperation.WRITE, AclOperation.CREATE, AclOperation.DESCRIBE,
                    AclOperation.DELETE, AclOperation.ALTER, AclOperation.DESCRIBE_CONFIGS, AclOperation.ALTER_CONFIGS),
            ResourceType.GROUP, Set.of(AclOperation.READ, AclOperation.DESCRIBE, AclOperation.DELETE,
                    AclOperation.DESCRIBE_CONFIGS, AclOperation.ALTER_CONFIGS),
            ResourceType.CLUSTER, Set.of(AclOperation.CREATE, AclOperation.CLUSTER_ACTION, AclOperation.DESCRIBE_CONFIGS,
                    AclOperation.ALTER_CONFIGS, AclOperation.IDEMPOTENT_WRITE, AclOperation.ALTER, AclOperation.DESCRIBE));

    /** The value of an authorized-operations field that was not asked for (the schemas' default). */
    static final int NOT_REQUESTED = Integer.MIN_VALUE;

    private Acls() {
    }

    /**
     * As Kafka's config APIs: {@code operation} (DESCRIBE_CONFIGS or ALTER_CONFIGS) on the topic, or on the cluster for
     * broker and broker-logger resources.
     *
     * @throws TopicAuthorizationException or ClusterAuthorizationException when refused
     */
    static void requireConfigs(KafkaRequest request, BrokerContext broker, AclOperation operation, byte resourceType,
                               String name) {
        if (resourceType == ConfigResource.Type.TOPIC.id()) {
            if (!broker.authorized(request, operation, ResourceType.TOPIC, name)) {
                throw new TopicAuthorizationException(Set.of(name));
            }
        } else {
            broker.requireCluster(request, operation);
        }
    }
}
