package dev.samsa.handler;

import dev.samsa.cluster.Partition;
import dev.samsa.cluster.Topic;
import dev.samsa.wire.KafkaRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.message.DescribeTopicPartitionsRequestData;
import org.apache.kafka.common.message.DescribeTopicPartitionsResponseData;
import org.apache.kafka.common.message.DescribeTopicPartitionsResponseData.Cursor;
import org.apache.kafka.common.message.DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponsePartition;
import org.apache.kafka.common.message.DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponseTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/**
 * DescribeTopicPartitions v0 (KIP-966), what {@code Admin.describeTopics} sends from kafka-clients 3.8 on, as Kafka's
 * {@code DescribeTopicPartitionsRequestHandler} answers: the named topics (all when none is named), in name order from
 * the cursor on, at most {@code min(responsePartitionLimit, max.request.partition.size.limit)} partitions, with a
 * next cursor where the answer stopped. A named topic the principal may not DESCRIBE is TOPIC_AUTHORIZATION_FAILED
 * (with no id); with no names such topics are left out, as are unknown ones. A cursor topic missing from the names,
 * or a negative cursor partition, is INVALID_REQUEST. A partition without a leader is answered with leader -1 and no
 * error, as Kafka does. Samsa has no eligible leader replicas (KIP-966 ELR): both ELR lists are empty.
 */
final class DescribeTopicPartitionsHandler implements ApiHandler {

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.DESCRIBE_TOPIC_PARTITIONS;
    }

    @Override
    public void handle(KafkaRequest request, BrokerContext broker) {
        DescribeTopicPartitionsRequestData data = request.data();
        boolean all = data.topics().isEmpty();
        DescribeTopicPartitionsRequestData.Cursor cursor = data.cursor();
        String from = cursor == null ? "" : cursor.topicName();
        TreeSet<String> names = new TreeSet<>();
        if (all) {
            broker.cluster().metadata().topics().forEach(t -> names.add(t.name()));
        } else {
            data.topics().forEach(t -> names.add(t.name()));
        }
        names.headSet(from).clear();
        if (cursor != null && !all && !names.contains(cursor.topicName())) {
            throw new InvalidRequestException("DescribeTopicPartitionsRequest topic list should contain the cursor topic: "
                    + cursor.topicName());
        }
        if (cursor != null && cursor.partitionIndex() < 0) {
            throw new InvalidRequestException("DescribeTopicPartitionsRequest cursor partition must be valid: " + cursor);
        }
        DescribeTopicPartitionsResponseData response = new DescribeTopicPartitionsResponseData();
        List<DescribeTopicPartitionsResponseTopic> refused = new ArrayList<>();
        int remaining = Math.max(Math.min(partitionLimit(broker), data.responsePartitionLimit()), 1);
        for (String name : names) {
            if (!broker.authorizedQuietly(request, AclOperation.DESCRIBE, ResourceType.TOPIC, name)) {
                if (!all) {
                    refused.add(new DescribeTopicPartitionsResponseTopic().setName(name).setTopicId(Uuid.ZERO_UUID)
                            .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code()));
                }
                continue;
            }
            if (remaining == 0) {
                response.setNextCursor(new Cursor().setTopicName(name).setPartitionIndex(0));
                break;
            }
            Topic topic = broker.cluster().metadata().topic(name);
            if (topic == null) {
                if (!all) {
                    response.topics().add(new DescribeTopicPartitionsResponseTopic().setName(name).setTopicId(Uuid.ZERO_UUID)
                            .setIsInternal(org.apache.kafka.common.internals.Topic.isInternal(name))
                            .setErrorCode(unknownTopicError(name).code()));
                }
                continue;
            }
            int start = name.equals(from) ? cursor.partitionIndex() : 0;
            int end = Math.min(topic.partitions().size(), start + remaining);
            response.topics().add(describe(topic, start, end, broker.brokerId())
                    .setTopicAuthorizedOperations(broker.authorizedOperations(request, ResourceType.TOPIC, name)));
            if (end < topic.partitions().size()) {
                response.setNextCursor(new Cursor().setTopicName(name).setPartitionIndex(end));
                break;
            }
            remaining -= Math.max(0, end - start);
        }
        response.topics().addAll(refused);
        request.respond(response);
    }

    private static int partitionLimit(BrokerContext broker) {
        return broker.configs().getInt("max.request.partition.size.limit");
    }

    private static Errors unknownTopicError(String name) {
        try {
            org.apache.kafka.common.internals.Topic.validate(name);
            return Errors.UNKNOWN_TOPIC_OR_PARTITION;
        } catch (InvalidTopicException e) {
            return Errors.INVALID_TOPIC_EXCEPTION;
        }
    }

    private static DescribeTopicPartitionsResponseTopic describe(Topic topic, int start, int end, int viewer) {
        DescribeTopicPartitionsResponseTopic t = new DescribeTopicPartitionsResponseTopic().setName(topic.name())
                .setTopicId(topic.id()).setIsInternal(org.apache.kafka.common.internals.Topic.isInternal(topic.name()));
        List<Partition> partitions = new ArrayList<>(topic.partitions());
        for (int i = start; i < end; i++) {
            Partition p = partitions.get(i);
            t.partitions().add(new DescribeTopicPartitionsResponsePartition()
                    .setPartitionIndex(p.index())
                    .setLeaderId(p.isStaleLeader(viewer) ? viewer : p.leader())
                    .setLeaderEpoch(p.leaderEpochSeenBy(viewer))
                    .setReplicaNodes(new ArrayList<>(p.replicas()))
                    .setIsrNodes(new ArrayList<>(p.isrSeenBy(viewer)))
                    .setEligibleLeaderReplicas(new ArrayList<>())
                    .setLastKnownElr(new ArrayList<>())
                    .setOfflineReplicas(new ArrayList<>(p.offlineReplicas())));
        }
        return t;
    }
}
