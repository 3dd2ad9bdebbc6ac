package dev.samsa.handler;

import dev.samsa.cluster.BrokerInfo;
import dev.samsa.cluster.ClusterMetadata;
import dev.samsa.cluster.Partition;
import dev.samsa.cluster.Topic;
import dev.samsa.wire.KafkaRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseBroker;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/**
 * Metadata v0-13: live brokers, cluster id, controller, and the requested topics (all when the list is null; by id
 * from v12). An unknown topic is created when the request allows it (v4+, always before) and
 * auto.create.topics.enable is on, with num.partitions and default.replication.factor. From v8, authorized operations
 * when asked, as Kafka: of each topic that passed authorization (not of refused ones or unknown ids), and of the
 * cluster up to v10.
 */
final class MetadataHandler implements ApiHandler {

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.METADATA;
    }

    @Override
    public void handle(KafkaRequest request, BrokerContext broker) {
        MetadataRequestData data = request.data();
        ClusterMetadata metadata = broker.cluster().metadata();
        MetadataResponseData response = new MetadataResponseData()
                .setClusterId(metadata.clusterId())
                .setControllerId(metadata.controllerId());
        for (BrokerInfo b : knownBrokers(metadata, broker.brokerId())) {
            response.brokers().add(new MetadataResponseBroker().setNodeId(b.id()).setHost(b.host()).setPort(broker.advertisedPort(b, request)).setRack(b.rack()));
        }
        int viewer = broker.brokerId();
        if (data.topics() == null) {
            // Topics the principal may not DESCRIBE are left out, as if they did not exist.
            metadata.topics().stream().filter(t -> broker.authorizedQuietly(request, AclOperation.DESCRIBE, ResourceType.TOPIC, t.name()))
                    .forEach(t -> response.topics().add(describe(t, viewer)));
        } else {
            boolean autoCreate = (request.version() < 4 || data.allowAutoTopicCreation())
                    && broker.configs().getBoolean("auto.create.topics.enable");
            for (MetadataRequestData.MetadataRequestTopic requested : data.topics()) {
                MetadataResponseTopic refused = refusal(requested, request, broker, autoCreate);
                response.topics().add(refused != null ? refused : lookup(requested, metadata, autoCreate, viewer));
            }
        }
        if (request.version() >= 8) {
            addAuthorizedOperations(data, request, broker, response);
        }
        request.respond(response);
    }

    private static void addAuthorizedOperations(MetadataRequestData data, KafkaRequest request, BrokerContext broker,
                                                MetadataResponseData response) {
        if (request.version() <= 10 && data.includeClusterAuthorizedOperations()) {
            response.setClusterAuthorizedOperations(DescribeClusterHandler.clusterAuthorizedOperations(request, broker));
        }
        if (data.includeTopicAuthorizedOperations()) {
            // Kafka fills every topic that passed authorization, errors such as UNKNOWN_TOPIC_OR_PARTITION included.
            response.topics().stream().filter(t -> t.errorCode() != Errors.TOPIC_AUTHORIZATION_FAILED.code()
                    && t.errorCode() != Errors.UNKNOWN_TOPIC_ID.code()).forEach(t -> t.setTopicAuthorizedOperations(
                    broker.authorizedOperations(request, ResourceType.TOPIC, t.name())));
        }
    }

    /** The live brokers, and the answering one even when the controller has fenced it: it still knows itself. */
    private static List<BrokerInfo> knownBrokers(ClusterMetadata metadata, int viewer) {
        List<BrokerInfo> brokers = new ArrayList<>(metadata.liveBrokers());
        if (!metadata.isAlive(viewer)) {
            metadata.brokerInfo(viewer).ifPresent(brokers::add);
        }
        return brokers;
    }

    /**
     * TOPIC_AUTHORIZATION_FAILED, as Kafka answers, for a topic the principal may not DESCRIBE (its id only when asked
     * by id: ids are not secret) or may not CREATE when the request would create it; null when allowed.
     */
    private static MetadataResponseTopic refusal(MetadataRequestData.MetadataRequestTopic requested, KafkaRequest request,
                                                 BrokerContext broker, boolean autoCreate) {
        Topic topic = requested.name() == null || requested.name().isEmpty()
                ? broker.cluster().metadata().topic(requested.topicId()) : broker.cluster().metadata().topic(requested.name());
        String name = topic != null ? topic.name() : requested.name();
        if (name == null || name.isEmpty()) {
            return null;
        }
        MetadataResponseTopic refused = new MetadataResponseTopic().setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code());
        if (!broker.authorized(request, AclOperation.DESCRIBE, ResourceType.TOPIC, name)) {
            return requested.name() == null || requested.name().isEmpty() ? refused.setTopicId(requested.topicId()) : refused.setName(name);
        }
        if (topic == null && autoCreate && !broker.authorizedQuietly(request, AclOperation.CREATE, ResourceType.CLUSTER, Acls.CLUSTER_NAME)
                && !broker.authorized(request, AclOperation.CREATE, ResourceType.TOPIC, name)) {
            return refused.setName(name);
        }
        return null;
    }

    private static MetadataResponseTopic lookup(MetadataRequestData.MetadataRequestTopic requested, ClusterMetadata metadata,
                                                boolean autoCreate, int viewer) {
        Uuid id = requested.topicId();
        boolean byId = id != null && !Uuid.ZERO_UUID.equals(id);
        if (requested.name() == null || requested.name().isEmpty() && byId) {
            Topic topic = byId ? metadata.topic(id) : null;
            if (topic == null) {
                return new MetadataResponseTopic().setTopicId(id).setErrorCode(Errors.UNKNOWN_TOPIC_ID.code());
            }
            return describe(topic, viewer);
        }
        Topic topic = metadata.topic(requested.name());
        if (topic == null && autoCreate) {
            try {
                topic = metadata.createTopic(requested.name(), -1, -1, List.of(), Map.of(), false);
            } catch (ApiException e) {
                return new MetadataResponseTopic().setName(requested.name()).setErrorCode(Errors.forException(e).code());
            }
        }
        if (topic == null) {
            return new MetadataResponseTopic().setName(requested.name()).setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        }
        return describe(topic, viewer);
    }

    /** The topic as broker {@code viewer} sees it: a broker cut off from the controller still names itself leader. */
    static MetadataResponseTopic describe(Topic topic, int viewer) {
        MetadataResponseTopic t = new MetadataResponseTopic().setName(topic.name()).setTopicId(topic.id())
                .setIsInternal(topic.name().startsWith("__"));
        for (Partition p : topic.partitions()) {
            int leader = p.isStaleLeader(viewer) ? viewer : p.leader();
            boolean online = leader >= 0;
            t.partitions().add(new MetadataResponsePartition()
                    .setPartitionIndex(p.index())
                    .setErrorCode(online ? Errors.NONE.code() : Errors.LEADER_NOT_AVAILABLE.code())
                    .setLeaderId(leader)
                    .setLeaderEpoch(p.leaderEpochSeenBy(viewer))
                    .setReplicaNodes(new ArrayList<>(p.replicas()))
                    .setIsrNodes(new ArrayList<>(p.isrSeenBy(viewer)))
                    .setOfflineReplicas(new ArrayList<>(p.offlineReplicas())));
        }
        return t;
    }
}
