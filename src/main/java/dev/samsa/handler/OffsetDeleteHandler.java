package dev.samsa.handler;

import dev.samsa.wire.KafkaRequest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetDeleteResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/**
 * OffsetDelete v0, as Kafka: an Empty group loses the offsets asked for; a non-empty consumer group loses those of
 * topics it does not subscribe to, and partitions of subscribed topics answer GROUP_SUBSCRIBED_TO_TOPIC. Group-level
 * errors: GROUP_ID_NOT_FOUND, NON_EMPTY_GROUP (a non-empty group of another protocol type), NOT_COORDINATOR,
 * COORDINATOR_NOT_AVAILABLE. The answer waits until the tombstones are replicated. Needs DELETE on the group and READ
 * on each topic (TOPIC_AUTHORIZATION_FAILED for its partitions, whether or not it exists).
 */
final class OffsetDeleteHandler implements ApiHandler {

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.OFFSET_DELETE;
    }

    @Override
    public void handle(KafkaRequest request, BrokerContext broker) {
        OffsetDeleteRequestData data = request.data();
        broker.requireGroup(request, AclOperation.DELETE, data.groupId());
        OffsetDeleteResponseData response = new OffsetDeleteResponseData();
        // As Kafka: READ on each topic, checked before whether it exists; the group sees only what passes.
        Map<TopicPartition, Errors> refused = new HashMap<>();
        List<TopicPartition> partitions = new ArrayList<>();
        for (OffsetDeleteRequestData.OffsetDeleteRequestTopic t : data.topics()) {
            boolean readable = broker.authorized(request, AclOperation.READ, ResourceType.TOPIC, t.name());
            for (OffsetDeleteRequestData.OffsetDeleteRequestPartition p : t.partitions()) {
                TopicPartition tp = new TopicPartition(t.name(), p.partitionIndex());
                if (!readable) {
                    refused.put(tp, Errors.TOPIC_AUTHORIZATION_FAILED);
                } else if (broker.cluster().metadata().partition(tp) == null) {
                    refused.put(tp, Errors.UNKNOWN_TOPIC_OR_PARTITION);
                } else {
                    partitions.add(tp);
                }
            }
        }
        broker.groups().offsets().delete(broker.brokerId(), data.groupId(), partitions, (errors, error) -> {
            if (error != Errors.NONE) {
                request.respond(response.setErrorCode(error.code()));
                return;
            }
            for (OffsetDeleteRequestData.OffsetDeleteRequestTopic t : data.topics()) {
                OffsetDeleteResponseData.OffsetDeleteResponseTopic rt = new OffsetDeleteResponseData.OffsetDeleteResponseTopic().setName(t.name());
                t.partitions().forEach(p -> {
                    TopicPartition tp = new TopicPartition(t.name(), p.partitionIndex());
                    rt.partitions().add(new OffsetDeleteResponseData.OffsetDeleteResponsePartition()
                            .setPartitionIndex(p.partitionIndex()).setErrorCode(refused.getOrDefault(tp, errors.get(tp)).code()));
                });
                response.topics().add(rt);
            }
            request.respond(response);
        });
    }
}
