package dev.samsa.handler;

import dev.samsa.wire.KafkaRequest;
import java.util.Set;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.resource.ResourceType;

/** What the ACL handlers share with the handlers that check ACLs. */
final class Acls {

    /** The name of the one CLUSTER resource (Kafka's CLUSTER_NAME). */
    static final String CLUSTER_NAME = "kafka-cluster";

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
