package dev.samsa.handler;

import dev.samsa.wire.KafkaRequest;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetDeleteResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * OffsetDelete v0: deletes committed offsets of an Empty group. Group-level errors: GROUP_ID_NOT_FOUND,
 * NON_EMPTY_GROUP, NOT_COORDINATOR. Differs from Kafka: a non-empty "consumer" group is refused as a whole, where
 * Kafka deletes the partitions of topics it is not subscribed to and answers GROUP_SUBSCRIBED_TO_TOPIC for the rest.
 */
final class OffsetDeleteHandler implements ApiHandler {

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.OFFSET_DELETE;
    }

    @Override
    public void handle(KafkaRequest request, BrokerContext broker) {
        OffsetDeleteRequestData data = request.data();
        OffsetDeleteResponseData response = new OffsetDeleteResponseData();
        List<TopicPartition> partitions = new ArrayList<>();
        data.topics().forEach(t -> t.partitions().forEach(p -> partitions.add(new TopicPartition(t.name(), p.partitionIndex()))));
        try {
            broker.groups().offsets().delete(broker.brokerId(), data.groupId(), partitions);
        } catch (ApiException e) {
            request.respond(response.setErrorCode(Errors.forException(e).code()));
            return;
        }
        for (OffsetDeleteRequestData.OffsetDeleteRequestTopic t : data.topics()) {
            OffsetDeleteResponseData.OffsetDeleteResponseTopic rt = new OffsetDeleteResponseData.OffsetDeleteResponseTopic().setName(t.name());
            t.partitions().forEach(p -> rt.partitions().add(
                    new OffsetDeleteResponseData.OffsetDeleteResponsePartition().setPartitionIndex(p.partitionIndex())));
            response.topics().add(rt);
        }
        request.respond(response);
    }
}
