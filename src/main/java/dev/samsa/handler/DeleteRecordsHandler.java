package dev.samsa.handler;

import dev.samsa.cluster.Partition;
import dev.samsa.event.RecordsDeleted;
import dev.samsa.log.PartitionLog;
import dev.samsa.wire.KafkaRequest;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.apache.kafka.common.errors.PolicyViolationException;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DeleteRecordsResponseData;
import org.apache.kafka.common.message.DeleteRecordsResponseData.DeleteRecordsPartitionResult;
import org.apache.kafka.common.message.DeleteRecordsResponseData.DeleteRecordsTopicResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DeleteRecordsRequest;
import org.apache.kafka.common.requests.DeleteRecordsResponse;

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
                    long low = deleteRecords(new TopicPartition(t.name(), p.partitionIndex()), p.offset(), broker);
                    result.setLowWatermark(low).setErrorCode(Errors.NONE.code());
                } catch (ApiException e) {
                    result.setErrorCode(Errors.forException(e).code());
                }
                topicResult.partitions().add(result);
            }
        }
        request.respond(response);
    }

    /**
     * @return the new log start offset of the leader
     * @throws ApiException the error Kafka gives for this partition
     */
    private static long deleteRecords(TopicPartition tp, long requested, BrokerContext broker) {
        if (broker.cluster().metadata().partition(tp) != null && org.apache.kafka.common.internals.Topic.isInternal(tp.topic())) {
            throw new InvalidTopicException("Cannot delete records of internal topic " + tp.topic());
        }
        Partition partition = broker.replicaManager().leaderPartition(broker.brokerId(), tp);
        @SuppressWarnings("unchecked")
        List<String> cleanupPolicy = (List<String>) broker.cluster().metadata()
                .effectiveConfigs(partition.topic(), broker.brokerId()).get("cleanup.policy");
        if (!cleanupPolicy.contains("delete")) {
            throw new PolicyViolationException("Records of partition " + tp + " can not be deleted due to the configured policy");
        }
        long offset = requested == DeleteRecordsRequest.HIGH_WATERMARK ? partition.highWatermark() : requested;
        if (offset < 0) {
            throw new OffsetOutOfRangeException("The offset " + offset + " for partition " + tp + " is not valid");
        }
        if (offset > partition.highWatermark()) {
            throw new OffsetOutOfRangeException("Cannot increment the log start offset to " + offset + " of partition " + tp
                    + " since it is larger than the high watermark " + partition.highWatermark());
        }
        PartitionLog log = partition.log(broker.brokerId());
        long before = log.logStartOffset();
        long after = log.deleteRecordsBefore(offset);
        if (after != before) {
            broker.cluster().timeline().record(new RecordsDeleted(tp.topic(), tp.partition(), after, broker.brokerId()));
        }
        return after;
    }
}
