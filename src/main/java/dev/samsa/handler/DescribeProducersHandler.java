package dev.samsa.handler;

import dev.samsa.cluster.ActiveProducer;
import dev.samsa.wire.KafkaRequest;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.message.DescribeProducersRequestData;
import org.apache.kafka.common.message.DescribeProducersResponseData;
import org.apache.kafka.common.message.DescribeProducersResponseData.PartitionResponse;
import org.apache.kafka.common.message.DescribeProducersResponseData.ProducerState;
import org.apache.kafka.common.message.DescribeProducersResponseData.TopicResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/**
 * DescribeProducers v0: the producers the broker's replica of each partition knows (leader or follower, as Kafka
 * answers from its local log): epoch, last sequence, last timestamp, coordinator epoch and the start offset of the
 * ongoing transaction. An invalid topic name answers INVALID_TOPIC_EXCEPTION, an unknown partition
 * UNKNOWN_TOPIC_OR_PARTITION, a broker without a replica NOT_LEADER_OR_FOLLOWER.
 */
final class DescribeProducersHandler implements ApiHandler {

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.DESCRIBE_PRODUCERS;
    }

    @Override
    public void handle(KafkaRequest request, BrokerContext broker) {
        DescribeProducersRequestData data = request.data();
        DescribeProducersResponseData response = new DescribeProducersResponseData();
        for (DescribeProducersRequestData.TopicRequest topic : data.topics()) {
            TopicResponse tr = new TopicResponse().setName(topic.name());
            response.topics().add(tr);
            ApiException topicError = invalidTopic(topic.name());
            for (int index : topic.partitionIndexes()) {
                PartitionResponse pr = new PartitionResponse().setPartitionIndex(index);
                tr.partitions().add(pr);
                try {
                    if (topicError != null) {
                        throw topicError;
                    }
                    if (!broker.authorized(request, AclOperation.READ, ResourceType.TOPIC, topic.name())) {
                        throw new TopicAuthorizationException(java.util.Set.of(topic.name()));
                    }
                    for (ActiveProducer p : broker.replicaManager().activeProducers(broker.brokerId(),
                            new TopicPartition(topic.name(), index))) {
                        pr.activeProducers().add(new ProducerState().setProducerId(p.producerId())
                                .setProducerEpoch(p.producerEpoch()).setLastSequence(p.lastSequence())
                                .setLastTimestamp(p.lastTimestamp()).setCoordinatorEpoch(p.coordinatorEpoch())
                                .setCurrentTxnStartOffset(p.currentTxnStartOffset()));
                    }
                } catch (ApiException e) {
                    pr.setErrorCode(Errors.forException(e).code()).setErrorMessage(e.getMessage());
                }
            }
        }
        request.respond(response);
    }

    private static ApiException invalidTopic(String name) {
        try {
            Topic.validate(name);
            return null;
        } catch (InvalidTopicException e) {
            return e;
        }
    }
}
