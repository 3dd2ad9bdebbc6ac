package dev.samsa.handler;

import dev.samsa.cluster.Topic;
import dev.samsa.wire.KafkaRequest;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnknownServerException;
import org.apache.kafka.common.errors.UnknownTopicIdException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.RequestUtils;
import org.apache.kafka.common.resource.ResourceType;

/** What Kafka's KafkaApis and ReplicaManager check of one partition of a Produce before the log sees its records. */
final class ProduceChecks {

    private ProduceChecks() {
    }

    /**
     * The partition {@code pd} writes to, after the checks in Kafka's order: acks, WRITE on the topic, an unknown topic
     * (by id from v13), an internal topic, kafka-clients' version checks.
     *
     * @throws ApiException the partition's error
     */
    static TopicPartition checkPartition(KafkaRequest request, BrokerContext broker, ProduceRequestData.TopicProduceData topicData,
                                         String name, ProduceRequestData.PartitionProduceData pd) {
        short acks = request.<ProduceRequestData>data().acks();
        if (acks != 0 && acks != 1 && acks != -1) {
            throw Errors.INVALID_REQUIRED_ACKS.exception();
        }
        String aclName = name != null ? name : topicData.name();
        if (aclName != null && !aclName.isEmpty()
                && !broker.authorized(request, AclOperation.WRITE, ResourceType.TOPIC, aclName)) {
            throw new TopicAuthorizationException(Set.of(aclName));
        }
        if (name == null) {
            throw request.version() >= 13
                    ? new UnknownTopicIdException("Unknown topic id " + topicData.topicId())
                    : new UnknownTopicOrPartitionException("Unknown topic " + topicData.name());
        }
        if (org.apache.kafka.common.internals.Topic.isInternal(name)) {
            throw new InvalidTopicException("Cannot append to internal topic " + name);
        }
        TopicPartition tp = new TopicPartition(name, pd.index());
        // Null records get this far only for a partition Kafka does not know (nullRecordsToAppend took the others): the
        // append answers UNKNOWN_TOPIC_OR_PARTITION before it reads them.
        if (pd.records() != null) {
            validateRecords(request.version(), pd.records(), tp);
        }
        return tp;
    }

    /**
     * The first partition that Kafka would hand to its append (WRITE on the topic, the partition known) and that carries
     * null records, or null. Kafka 4.4's KafkaApis lets null records through its checks; ReplicaManager's
     * {@code handleProduceAppend} then reads the batches of every partition before appending any, meets a
     * NullPointerException, and building the error answer meets another ({@code ProduceRequest.getErrorResponse} sums
     * the partitions' sizes). The request handler only logs it: the request is never answered, nothing of it is
     * appended, and the client waits out its request timeout. With acks=0 there is no error answer to build, and the
     * connection is closed.
     */
    static TopicPartition nullRecordsToAppend(KafkaRequest request, BrokerContext broker) {
        for (ProduceRequestData.TopicProduceData topicData : request.<ProduceRequestData>data().topicData()) {
            String name = topicName(topicData, broker);
            if (name == null || !broker.authorized(request, AclOperation.WRITE, ResourceType.TOPIC, name)) {
                continue;
            }
            for (ProduceRequestData.PartitionProduceData pd : topicData.partitionData()) {
                TopicPartition tp = new TopicPartition(name, pd.index());
                if (pd.records() == null && broker.cluster().metadata().partition(tp) != null) {
                    return tp;
                }
            }
        }
        return null;
    }

    /** Whether the request holds transactional batches; batches that cannot even be walked are left to the per-partition checks, which answer for them. */
    static boolean hasTransactionalRecords(KafkaRequest request) {
        try {
            return RequestUtils.hasTransactionalRecords((ProduceRequest) request.body());
        } catch (RuntimeException e) {
            return false;
        }
    }

    /**
     * kafka-clients' version checks. A batch with an unknown compression id makes them throw a plain
     * IllegalArgumentException, which Kafka answers with UNKNOWN_SERVER_ERROR: the same here, as the client's error.
     */
    private static void validateRecords(short version, BaseRecords records, TopicPartition tp) {
        try {
            ProduceRequest.validateRecords(version, records);
        } catch (ApiException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new UnknownServerException("Record batch sent to " + tp + " cannot be read: " + e.getMessage());
        }
    }

    static String topicName(ProduceRequestData.TopicProduceData topicData, BrokerContext broker) {
        if (topicData.topicId() != null && !Uuid.ZERO_UUID.equals(topicData.topicId())) {
            Topic topic = broker.cluster().metadata().topic(topicData.topicId());
            return topic == null ? null : topic.name();
        }
        return topicData.name();
    }
}
