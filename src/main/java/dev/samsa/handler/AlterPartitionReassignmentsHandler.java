package dev.samsa.handler;

import dev.samsa.cluster.Partition;
import dev.samsa.cluster.Reassignments;
import dev.samsa.wire.KafkaRequest;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData.ReassignablePartition;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData.ReassignableTopic;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData.ReassignablePartitionResponse;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData.ReassignableTopicResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiError;

/**
 * AlterPartitionReassignments v0-1, as KRaft's controller answers it (ReplicationControlManager
 * .alterPartitionReassignments): starts each partition's move to the replicas given (see {@link Reassignments} for the
 * stages), or with null replicas cancels the one in progress. Errors per partition: UNKNOWN_TOPIC_OR_PARTITION,
 * INVALID_REPLICA_ASSIGNMENT (empty list, unregistered broker, broker named twice, or a cancellation that would need
 * an unclean election the topic does not allow), NO_REASSIGNMENT_IN_PROGRESS for a cancellation with nothing to
 * cancel. v1: allowReplicationFactorChange=false refuses a change of replica count with INVALID_REPLICATION_FACTOR
 * (KIP-860) and is echoed in the response. The answer comes when the reassignment has started, not when it completes,
 * so timeoutMs is not waited on.
 * Not implemented: authorization, replication throttles.
 */
final class AlterPartitionReassignmentsHandler implements ApiHandler {

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.ALTER_PARTITION_REASSIGNMENTS;
    }

    @Override
    public void handle(KafkaRequest request, BrokerContext broker) {
        broker.requireCluster(request, AclOperation.ALTER);
        AlterPartitionReassignmentsRequestData data = request.data();
        Reassignments reassignments = broker.cluster().reassignments();
        AlterPartitionReassignmentsResponseData response = new AlterPartitionReassignmentsResponseData()
                .setErrorCode(Errors.NONE.code()).setErrorMessage(null);
        if (request.version() >= 1) {
            response.setAllowReplicationFactorChange(data.allowReplicationFactorChange());
        }
        for (ReassignableTopic t : data.topics()) {
            ReassignableTopicResponse topicResponse = new ReassignableTopicResponse().setName(t.name());
            response.responses().add(topicResponse);
            for (ReassignablePartition p : t.partitions()) {
                ApiError error = ApiError.NONE;
                try {
                    Partition partition = broker.cluster().metadata().partition(new TopicPartition(t.name(), p.partitionIndex()));
                    if (partition == null) {
                        throw new UnknownTopicOrPartitionException(broker.cluster().metadata().topic(t.name()) == null
                                ? "Unable to find a topic named " + t.name() + "."
                                : "Unable to find partition " + t.name() + ":" + p.partitionIndex() + ".");
                    }
                    if (p.replicas() == null) {
                        reassignments.cancel(partition);
                    } else {
                        reassignments.reassign(partition, p.replicas(), data.allowReplicationFactorChange());
                    }
                } catch (ApiException e) {
                    error = ApiError.fromThrowable(e);
                }
                topicResponse.partitions().add(new ReassignablePartitionResponse().setPartitionIndex(p.partitionIndex())
                        .setErrorCode(error.error().code()).setErrorMessage(KafkaRequest.fitErrorMessage(error.message())));
            }
        }
        request.respond(response);
    }
}
