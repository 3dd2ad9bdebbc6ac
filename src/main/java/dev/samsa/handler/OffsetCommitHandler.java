package dev.samsa.handler;

import dev.samsa.cluster.ConsumerHistory;
import dev.samsa.cluster.Topic;
import dev.samsa.group.CommittedOffset;
import dev.samsa.wire.KafkaRequest;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/**
 * OffsetCommit v2-10. The member id and generation are checked (UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION,
 * FENCED_INSTANCE_ID v7+, REBALANCE_IN_PROGRESS while CompletingRebalance); generation -1 is a simple commit, accepted
 * for an Empty or unknown group. Metadata strings are kept (OFFSET_METADATA_TOO_LARGE past 4096 bytes); an unknown
 * topic gets UNKNOWN_TOPIC_OR_PARTITION. v6+ leader epochs are stored. The v2-4 retention time is ignored, as Kafka 4
 * does. v9 answers GROUP_ID_NOT_FOUND for an unknown group with a generation. v10 names topics by id instead of name
 * (KIP-848), in the request and the answer; an id no topic has gets UNKNOWN_TOPIC_ID, before any other check, as
 * Kafka answers it.
 *
 * <p>The answer waits until the offset records are replicated (the high watermark of the group's
 * {@code __consumer_offsets} partition passes them), as Kafka's coordinator does; a write that cannot be replicated
 * answers NOT_COORDINATOR (leadership moved) or COORDINATOR_NOT_AVAILABLE (offsets.commit.timeout.ms passed).
 */
final class OffsetCommitHandler implements ApiHandler {

    private static final int MAX_METADATA = 4096;

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.OFFSET_COMMIT;
    }

    @Override
    public void handle(KafkaRequest request, BrokerContext broker) {
        OffsetCommitRequestData data = request.data();
        broker.requireGroup(request, AclOperation.READ, data.groupId());
        long now = broker.cluster().nowMs();
        OffsetCommitResponseData response = new OffsetCommitResponseData();
        Map<TopicPartition, CommittedOffset> commits = new LinkedHashMap<>();
        Map<TopicPartition, OffsetCommitResponseData.OffsetCommitResponsePartition> results = new LinkedHashMap<>();
        boolean byId = request.version() >= 10;
        for (OffsetCommitRequestData.OffsetCommitRequestTopic t : data.topics()) {
            Topic topic = byId ? broker.cluster().metadata().topic(t.topicId()) : broker.cluster().metadata().topic(t.name());
            String name = !byId ? t.name() : topic == null ? "" : topic.name();
            OffsetCommitResponseData.OffsetCommitResponseTopic rt = new OffsetCommitResponseData.OffsetCommitResponseTopic().setName(name);
            if (byId) {
                rt.setTopicId(t.topicId());
            }
            response.topics().add(rt);
            boolean known = topic != null;
            for (OffsetCommitRequestData.OffsetCommitRequestPartition p : t.partitions()) {
                OffsetCommitResponseData.OffsetCommitResponsePartition rp =
                        new OffsetCommitResponseData.OffsetCommitResponsePartition().setPartitionIndex(p.partitionIndex());
                rt.partitions().add(rp);
                TopicPartition tp = new TopicPartition(name, p.partitionIndex());
                if (byId && !known) {
                    rp.setErrorCode(Errors.UNKNOWN_TOPIC_ID.code());
                } else if (!broker.authorized(request, AclOperation.READ, ResourceType.TOPIC, name)) {
                    rp.setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code());
                } else if (!known || broker.cluster().metadata().partition(tp) == null) {
                    rp.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
                } else if (p.committedMetadata() != null && p.committedMetadata().length() > MAX_METADATA) {
                    rp.setErrorCode(Errors.OFFSET_METADATA_TOO_LARGE.code());
                } else {
                    commits.put(tp, new CommittedOffset(p.committedOffset(), p.committedLeaderEpoch(), p.committedMetadata(), now));
                    results.put(tp, rp);
                }
            }
        }
        broker.groups().offsets().commit(broker.brokerId(), request.version(), data.groupId(), data.memberId(),
                data.groupInstanceId(), data.generationIdOrMemberEpoch(), commits, request.clientAddress(),
                error -> {
                    if (error != Errors.NONE) {
                        results.values().forEach(rp -> rp.setErrorCode(error.code()));
                    } else {
                        commits.forEach((tp, c) -> broker.cluster().consumerHistory().committed(new ConsumerHistory.Commit(
                                data.groupId(), data.memberId(), data.generationIdOrMemberEpoch(), tp, c.offset(), now)));
                    }
                    request.respond(response);
                });
    }
}
