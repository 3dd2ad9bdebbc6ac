package dev.samsa.handler;

import dev.samsa.cluster.ClusterMetadata;
import dev.samsa.cluster.Partition;
import dev.samsa.cluster.Topic;
import dev.samsa.wire.KafkaRequest;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsResponseData.DeletableTopicResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.common.resource.ResourceType;

/**
 * DeleteTopics v1-6, as Kafka's controller answers it: topics by name (topicNames before v6, topics with a name from
 * v6) or by id (v6, topics with a null name). An unknown name gets UNKNOWN_TOPIC_OR_PARTITION, an unknown id
 * UNKNOWN_TOPIC_ID; a name or id given twice (also an id and the name it maps to) INVALID_REQUEST, as does a topic
 * with both name and id or neither. When the controller has delete.topic.enable=false the whole request fails with
 * TOPIC_DELETION_DISABLED (INVALID_REQUEST before v3). A deleted topic's logs are removed at once, so timeoutMs is
 * not waited on. Results keep the request's order (Kafka shuffles them).
 * Authorization as Kafka's: DELETE on the cluster, or DESCRIBE and DELETE on each topic, checked before existence so
 * that an unauthorized client cannot tell a missing topic from a forbidden one.
 * Not implemented: controller mutation quotas (v5 THROTTLING_QUOTA_EXCEEDED).
 */
final class DeleteTopicsHandler implements ApiHandler {

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.DELETE_TOPICS;
    }

    @Override
    public void handle(KafkaRequest request, BrokerContext broker) {
        DeleteTopicsRequestData data = request.data();
        ClusterMetadata metadata = broker.cluster().metadata();
        if (!metadata.controllerConfigs().getBoolean("delete.topic.enable")) {
            request.respondWithError(request.version() < 3 ? Errors.INVALID_REQUEST : Errors.TOPIC_DELETION_DISABLED);
            return;
        }
        DeleteTopicsResponseData response = new DeleteTopicsResponseData();
        Set<String> names = new LinkedHashSet<>();
        Set<String> duplicateNames = new LinkedHashSet<>();
        Set<Uuid> ids = new LinkedHashSet<>();
        Set<Uuid> duplicateIds = new LinkedHashSet<>();
        data.topicNames().forEach(name -> addOnce(name, names, duplicateNames));
        for (DeleteTopicsRequestData.DeleteTopicState t : data.topics()) {
            boolean noId = Uuid.ZERO_UUID.equals(t.topicId());
            if (t.name() == null && noId) {
                add(response, null, Uuid.ZERO_UUID, new ApiError(Errors.INVALID_REQUEST, "Neither topic name nor id were specified."));
            } else if (t.name() == null) {
                addOnce(t.topicId(), ids, duplicateIds);
            } else if (noId) {
                addOnce(t.name(), names, duplicateNames);
            } else {
                add(response, t.name(), t.topicId(), new ApiError(Errors.INVALID_REQUEST, "You may not specify both topic name and topic id."));
            }
        }
        duplicateNames.forEach(n -> add(response, n, Uuid.ZERO_UUID, new ApiError(Errors.INVALID_REQUEST, "Duplicate topic name.")));
        duplicateIds.forEach(id -> add(response, null, id, new ApiError(Errors.INVALID_REQUEST, "Duplicate topic id.")));

        // As Kafka's ControllerApis: authorize by name before saying whether a name exists (DESCRIBE decides whether
        // an unauthorized answer may carry the name of a topic given by id); DELETE on the cluster covers every topic.
        boolean clusterDelete = broker.authorizedQuietly(request, AclOperation.DELETE, ResourceType.CLUSTER, Acls.CLUSTER_NAME);
        Predicate<String> describable = name -> clusterDelete
                || broker.authorized(request, AclOperation.DESCRIBE, ResourceType.TOPIC, name);
        Predicate<String> deletable = name -> clusterDelete
                || broker.authorized(request, AclOperation.DELETE, ResourceType.TOPIC, name);
        Map<Uuid, String> toDelete = new LinkedHashMap<>();
        for (Uuid id : ids) {
            Topic topic = metadata.topic(id);
            if (topic == null) {
                add(response, null, id, new ApiError(Errors.UNKNOWN_TOPIC_ID));
            } else if (!deletable.test(topic.name())) {
                add(response, describable.test(topic.name()) ? topic.name() : null, id,
                        new ApiError(Errors.TOPIC_AUTHORIZATION_FAILED));
            } else {
                toDelete.put(id, topic.name());
            }
        }
        for (String name : names) {
            Topic topic = metadata.topic(name);
            if (!describable.test(name)) {
                add(response, name, Uuid.ZERO_UUID, new ApiError(Errors.TOPIC_AUTHORIZATION_FAILED));
            } else if (topic == null) {
                add(response, name, Uuid.ZERO_UUID, new ApiError(Errors.UNKNOWN_TOPIC_OR_PARTITION));
            } else if (!deletable.test(name)) {
                add(response, name, Uuid.ZERO_UUID, new ApiError(Errors.TOPIC_AUTHORIZATION_FAILED));
            } else if (toDelete.containsKey(topic.id())) {
                toDelete.remove(topic.id());
                add(response, name, topic.id(), new ApiError(Errors.INVALID_REQUEST,
                        "The provided topic name maps to an ID that was already supplied."));
            } else {
                toDelete.put(topic.id(), name);
            }
        }
        toDelete.forEach((id, name) -> {
            try {
                List<TopicPartition> partitions = metadata.requireTopic(name).partitions().stream()
                        .map(Partition::topicPartition).toList();
                metadata.deleteTopic(name);
                // Long-polls and acks=all produces waiting on the topic learn at once that it is gone, as in Kafka.
                partitions.forEach(tp -> broker.cluster().purgatory().checkAndComplete(tp));
                add(response, name, id, ApiError.NONE);
            } catch (ApiException e) {
                add(response, name, id, ApiError.fromThrowable(e));
            }
        });
        request.respond(response);
    }

    private static <T> void addOnce(T key, Set<T> once, Set<T> duplicates) {
        if (duplicates.contains(key) || !once.add(key)) {
            duplicates.add(key);
            once.remove(key);
        }
    }

    private static void add(DeleteTopicsResponseData response, String name, Uuid id, ApiError error) {
        response.responses().add(new DeletableTopicResult().setName(name).setTopicId(id)
                .setErrorCode(error.error().code()).setErrorMessage(KafkaRequest.fitErrorMessage(error.message())));
    }
}
