package dev.samsa.handler;

import dev.samsa.wire.KafkaRequest;
import java.util.HashSet;
import java.util.Set;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsPartitionResponse;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsTopicResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/**
 * ListOffsets v1-11: earliest (-2), latest (-1, the last fetchable offset), max timestamp (-3, v7+), earliest local
 * (-4, v8+, the log start offset with no tiered storage), latest tiered (-5, v9+, none: -1), earliest pending upload
 * (-6, v11+, KIP-1023; none without tiered storage: -1, as Kafka answers it), and the first record at
 * or after a timestamp below the last fetchable offset. The last fetchable offset is the high watermark for
 * read_uncommitted and the last stable offset for read_committed, as Kafka's fetchOffsetForTimestamp. A partition
 * asked twice gets INVALID_REQUEST.
 */
final class ListOffsetsHandler implements ApiHandler {

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.LIST_OFFSETS;
    }

    @Override
    public void handle(KafkaRequest request, BrokerContext broker) {
        ListOffsetsRequestData data = request.data();
        IsolationLevels.throwIfUnknown(data.isolationLevel());
        ListOffsetsResponseData response = new ListOffsetsResponseData();
        Set<TopicPartition> seen = new HashSet<>();
        Set<TopicPartition> duplicates = new HashSet<>();
        data.topics().forEach(t -> t.partitions().forEach(p -> {
            TopicPartition tp = new TopicPartition(t.name(), p.partitionIndex());
            if (!seen.add(tp)) {
                duplicates.add(tp);
            }
        }));
        for (ListOffsetsRequestData.ListOffsetsTopic topic : data.topics()) {
            ListOffsetsTopicResponse tr = new ListOffsetsTopicResponse().setName(topic.name());
            response.topics().add(tr);
            for (ListOffsetsRequestData.ListOffsetsPartition p : topic.partitions()) {
                TopicPartition tp = new TopicPartition(topic.name(), p.partitionIndex());
                ListOffsetsPartitionResponse pr = new ListOffsetsPartitionResponse().setPartitionIndex(p.partitionIndex())
                        .setTimestamp(-1).setOffset(-1).setLeaderEpoch(-1);
                tr.partitions().add(pr);
                if (duplicates.contains(tp)) {
                    pr.setErrorCode(Errors.INVALID_REQUEST.code());
                    continue;
                }
                if (!broker.authorized(request, AclOperation.DESCRIBE, ResourceType.TOPIC, topic.name())) {
                    pr.setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code());
                    continue;
                }
                try {
                    boolean withEpoch = request.version() >= 4; // the field exists from v4; older clients cannot read it
                    broker.replicaManager().fetchOffsetForTimestamp(broker.brokerId(), tp, p.currentLeaderEpoch(), p.timestamp(),
                                    IsolationLevel.forId(data.isolationLevel()))
                            .ifPresent(found -> pr.setTimestamp(found.timestamp).setOffset(found.offset)
                                    .setLeaderEpoch(withEpoch ? found.leaderEpoch.orElse(-1) : -1));
                } catch (ApiException e) {
                    pr.setErrorCode(Errors.forException(e).code());
                }
            }
        }
        request.respond(response);
    }
}
