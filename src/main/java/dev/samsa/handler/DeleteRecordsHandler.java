package dev.samsa.handler;

import dev.samsa.wire.KafkaRequest;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DeleteRecordsResponseData;
import org.apache.kafka.common.message.DeleteRecordsResponseData.DeleteRecordsPartitionResult;
import org.apache.kafka.common.message.DeleteRecordsResponseData.DeleteRecordsTopicResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DeleteRecordsResponse;
import org.apache.kafka.common.resource.ResourceType;

/**
 * DeleteRecords v0-2: raises the leader's log start offset of each partition to the requested offset (-1: the high
 * watermark) and answers the new low watermark, as Kafka's ReplicaManager and Partition.deleteRecordsOnLeader do.
 * Errors per partition: UNKNOWN_TOPIC_OR_PARTITION, INVALID_TOPIC_EXCEPTION for an internal topic,
 * NOT_LEADER_OR_FOLLOWER, POLICY_VIOLATION when cleanup.policy lacks "delete", OFFSET_OUT_OF_RANGE below 0 or above
 * the high watermark; the low watermark is then -1. An offset at or below the log start offset changes nothing.
 * Not implemented: Kafka parks the request until every live follower's log start offset has caught up and answers
 * the lowest; Samsa answers at once with the leader's, and followers learn it through replication.
 */
final class DeleteRecordsHandler implements ApiHandler {

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.DELETE_RECORDS;
    }

    @Override
    public void handle(KafkaRequest request, BrokerContext broker) {
        DeleteRecordsRequestData data = request.data();
        DeleteRecordsResponseData response = new DeleteRecordsResponseData();
        for (DeleteRecordsRequestData.DeleteRecordsTopic t : data.topics()) {
            DeleteRecordsTopicResult topicResult = new DeleteRecordsTopicResult().setName(t.name());
            response.topics().add(topicResult);
            for (DeleteRecordsRequestData.DeleteRecordsPartition p : t.partitions()) {
                DeleteRecordsPartitionResult result = new DeleteRecordsPartitionResult().setPartitionIndex(p.partitionIndex())
                        .setLowWatermark(DeleteRecordsResponse.INVALID_LOW_WATERMARK);
                try {
                    if (!broker.authorized(request, AclOperation.DELETE, ResourceType.TOPIC, t.name())) {
                        throw new TopicAuthorizationException(java.util.Set.of(t.name()));
                    }
                    long low = broker.replicaManager().deleteRecords(broker.brokerId(), new TopicPartition(t.name(), p.partitionIndex()),
                            p.offset());
                    result.setLowWatermark(low).setErrorCode(Errors.NONE.code());
                } catch (ApiException e) {
                    result.setErrorCode(Errors.forException(e).code());
                }
                topicResult.partitions().add(result);
            }
        }
        request.respond(response);
    }
}
