package dev.samsa.handler;

import dev.samsa.cluster.ClusterMetadata;
import dev.samsa.cluster.Topic;
import dev.samsa.wire.KafkaRequest;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.InvalidReplicaAssignmentException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsRequestData.CreatePartitionsTopic;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.CreatePartitionsResponseData.CreatePartitionsTopicResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.common.resource.ResourceType;

/**
 * CreatePartitions v0-3, as Kafka's controller answers it: grows each topic to count partitions, placing the new
 * replicas itself or as the request assigns them (one replica list per new partition, each as long as the topic's
 * replication factor). A count that does not grow the topic gets INVALID_PARTITIONS, a bad assignment
 * INVALID_REPLICA_ASSIGNMENT, an unknown topic UNKNOWN_TOPIC_OR_PARTITION, and a topic named twice INVALID_REQUEST
 * "Duplicate topic name." (first in the response, as Kafka lists them). validateOnly checks and changes nothing.
 * Partitions exist at once, so timeoutMs is not waited on. More than 10,000 new partitions in one request get
 * POLICY_VIOLATION "Excessively large number of partitions per request." for every topic, as for CreateTopics.
 * Not implemented: controller mutation quotas (v3 THROTTLING_QUOTA_EXCEEDED), authorization.
 */
final class CreatePartitionsHandler implements ApiHandler {

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.CREATE_PARTITIONS;
    }

    @Override
    public void handle(KafkaRequest request, BrokerContext broker) {
        CreatePartitionsRequestData data = request.data();
        ClusterMetadata metadata = broker.cluster().metadata();
        Set<String> seen = new HashSet<>();
        Set<String> duplicates = new LinkedHashSet<>();
        data.topics().forEach(t -> {
            if (!seen.add(t.name())) {
                duplicates.add(t.name());
            }
        });
        CreatePartitionsResponseData response = new CreatePartitionsResponseData();
        duplicates.forEach(name -> response.results().add(new CreatePartitionsTopicResult().setName(name)
                .setErrorCode(Errors.INVALID_REQUEST.code()).setErrorMessage("Duplicate topic name.")));
        boolean tooMany = newPartitions(data, metadata) > ClusterMetadata.MAX_PARTITIONS_PER_REQUEST;
        for (CreatePartitionsTopic t : data.topics()) {
            if (duplicates.contains(t.name())) {
                continue;
            }
            if (tooMany) {
                response.results().add(new CreatePartitionsTopicResult().setName(t.name())
                        .setErrorCode(Errors.POLICY_VIOLATION.code())
                        .setErrorMessage(ClusterMetadata.TOO_MANY_PARTITIONS));
                continue;
            }
            ApiError error = ApiError.NONE;
            try {
                if (!broker.authorized(request, AclOperation.ALTER, ResourceType.TOPIC, t.name())) {
                    throw new TopicAuthorizationException(Set.of(t.name()));
                }
                Topic topic = metadata.topic(t.name());
                if (topic == null) {
                    throw new UnknownTopicOrPartitionException();
                }
                metadata.createPartitions(t.name(), t.count(), assignments(t, topic), data.validateOnly());
            } catch (ApiException e) {
                error = ApiError.fromThrowable(e);
            }
            response.results().add(new CreatePartitionsTopicResult().setName(t.name())
                    .setErrorCode(error.error().code()).setErrorMessage(KafkaRequest.fitErrorMessage(error.message())));
        }
        request.respond(response);
    }

    /** Partitions the request would add, over the topics that exist, as a long so that no sum wraps. */
    private static long newPartitions(CreatePartitionsRequestData data, ClusterMetadata metadata) {
        long total = 0;
        for (CreatePartitionsTopic t : data.topics()) {
            Topic topic = metadata.topic(t.name());
            if (topic != null) {
                total += Math.max(0, t.count() - topic.partitions().size());
            }
        }
        return total;
    }

    /**
     * @return the requested replica lists, or null to let the cluster place them
     * @throws InvalidReplicaAssignmentException when the lists do not match the new partitions one to one, or a
     *                                           list's length differs from the topic's replication factor
     */
    private static List<List<Integer>> assignments(CreatePartitionsTopic t, Topic topic) {
        if (t.assignments() == null) {
            return null;
        }
        List<List<Integer>> assignments = new ArrayList<>();
        t.assignments().forEach(a -> assignments.add(a.brokerIds()));
        int additional = t.count() - topic.partitions().size();
        if (additional <= 0) {
            return assignments; // the cluster refuses the count first, as Kafka does
        }
        if (assignments.size() != additional) {
            throw new InvalidReplicaAssignmentException("Attempted to add " + additional
                    + " additional partition(s), but only " + assignments.size() + " assignment(s) were specified.");
        }
        for (List<Integer> replicas : assignments) {
            if (replicas.size() != topic.replicationFactor()) {
                throw new InvalidReplicaAssignmentException("The manual partition assignment includes a partition with "
                        + replicas.size() + " replica(s), but this is not consistent with previous partitions, which have "
                        + topic.replicationFactor() + " replica(s).");
            }
        }
        return assignments;
    }
}
