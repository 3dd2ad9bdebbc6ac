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
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseBroker;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * Metadata v0-13: live brokers, cluster id, controller, and the requested topics (all when the list is null; by id
 * from v12). An unknown topic is created when the request allows it (v4+, always before) and
 * auto.create.topics.enable is on, with num.partitions and default.replication.factor. Authorized operations are not
 * computed (no ACLs).
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
        for (BrokerInfo b : metadata.liveBrokers()) {
            response.brokers().add(new MetadataResponseBroker().setNodeId(b.id()).setHost(b.host()).setPort(b.port()).setRack(b.rack()));
        }
        if (data.topics() == null) {
            metadata.topics().forEach(t -> response.topics().add(describe(t)));
        } else {
            boolean autoCreate = (request.version() < 4 || data.allowAutoTopicCreation())
                    && broker.configs().getBoolean("auto.create.topics.enable");
            for (MetadataRequestData.MetadataRequestTopic requested : data.topics()) {
                response.topics().add(lookup(requested, metadata, autoCreate));
            }
        }
        request.respond(response);
    }

    private static MetadataResponseTopic lookup(MetadataRequestData.MetadataRequestTopic requested, ClusterMetadata metadata,
                                                boolean autoCreate) {
        Uuid id = requested.topicId();
        boolean byId = id != null && !Uuid.ZERO_UUID.equals(id);
        if (requested.name() == null || requested.name().isEmpty() && byId) {
            Topic topic = byId ? metadata.topic(id) : null;
            if (topic == null) {
                return new MetadataResponseTopic().setTopicId(id).setErrorCode(Errors.UNKNOWN_TOPIC_ID.code());
            }
            return describe(topic);
        }
        Topic topic = metadata.topic(requested.name());
        if (topic == null && autoCreate) {
            try {
                topic = metadata.createTopic(requested.name(), -1, -1, Map.of(), Map.of(), false);
            } catch (ApiException e) {
                return new MetadataResponseTopic().setName(requested.name()).setErrorCode(Errors.forException(e).code());
            }
        }
        if (topic == null) {
            return new MetadataResponseTopic().setName(requested.name()).setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        }
        return describe(topic);
    }

    static MetadataResponseTopic describe(Topic topic) {
        MetadataResponseTopic t = new MetadataResponseTopic().setName(topic.name()).setTopicId(topic.id())
                .setIsInternal(topic.name().startsWith("__"));
        for (Partition p : topic.partitions()) {
            List<Integer> offline = new ArrayList<>();
            for (int r : p.replicas()) {
                if (p.log(r) == null) {
                    offline.add(r);
                }
            }
            boolean online = p.leader() >= 0;
            t.partitions().add(new MetadataResponsePartition()
                    .setPartitionIndex(p.index())
                    .setErrorCode(online ? Errors.NONE.code() : Errors.LEADER_NOT_AVAILABLE.code())
                    .setLeaderId(p.leader())
                    .setLeaderEpoch(p.leaderEpoch())
                    .setReplicaNodes(new ArrayList<>(p.replicas()))
                    .setIsrNodes(new ArrayList<>(p.isr()))
                    .setOfflineReplicas(offline));
        }
        return t;
    }
}
