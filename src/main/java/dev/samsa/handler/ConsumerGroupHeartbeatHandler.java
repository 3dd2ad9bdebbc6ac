package dev.samsa.handler;

import dev.samsa.group.modern.Assignment;
import dev.samsa.group.modern.consumer.HeartbeatRequest;
import dev.samsa.group.modern.consumer.HeartbeatResult;
import dev.samsa.cluster.ConsumerHistory;
import dev.samsa.wire.KafkaRequest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * ConsumerGroupHeartbeat v0-1 (KIP-848 consumer protocol). Joins (epoch 0), heartbeats, reports owned partitions and
 * learns the member's assignment; epoch -1 leaves, -2 leaves a static member's place open. Answered once the group's
 * record is replicated. v1: the client picks its member id (KIP-1082; an empty one is INVALID_REQUEST) and may
 * subscribe by regular expression. Errors: FENCED_MEMBER_EPOCH, UNKNOWN_MEMBER_ID, UNRELEASED_INSTANCE_ID,
 * GROUP_MAX_SIZE_REACHED, UNSUPPORTED_ASSIGNOR, INVALID_REGULAR_EXPRESSION, INVALID_REQUEST, GROUP_ID_NOT_FOUND,
 * NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE. Not implemented: a classic member in the same group (migration).
 */
final class ConsumerGroupHeartbeatHandler implements ApiHandler {

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.CONSUMER_GROUP_HEARTBEAT;
    }

    @Override
    public void handle(KafkaRequest request, BrokerContext broker) {
        ConsumerGroupHeartbeatRequestData data = request.data();
        broker.requireGroup(request, AclOperation.READ, data.groupId());
        try {
            if (request.version() >= 1 && data.memberId().isEmpty()) {
                throw new org.apache.kafka.common.errors.InvalidRequestException("MemberId can't be empty.");
            }
            String memberId = data.memberId().isEmpty() ? broker.groups().newMemberUuid() : data.memberId();
            HeartbeatRequest req = new HeartbeatRequest(data.groupId(), memberId, data.memberEpoch(), data.instanceId(),
                    data.rackId(), data.rebalanceTimeoutMs(), data.subscribedTopicNames(),
                    request.version() >= 1 ? data.subscribedTopicRegex() : null, data.serverAssignor(), owned(data),
                    request.clientId(), request.clientAddress());
            broker.groups().consumerGroupHeartbeat(broker.brokerId(), req, (result, error) -> {
                if (error == Errors.NONE) {
                    broker.cluster().consumerHistory().member(new ConsumerHistory.Member(data.groupId(),
                            result.memberId(), result.memberEpoch(), request.clientId()));
                    request.respond(response(result));
                } else {
                    request.respond(new ConsumerGroupHeartbeatResponseData().setErrorCode(error.code()));
                }
            });
        } catch (ApiException e) {
            Errors error = Errors.forException(e);
            request.respond(new ConsumerGroupHeartbeatResponseData().setErrorCode(error.code()).setErrorMessage(e.getMessage()));
        }
    }

    private static Assignment owned(ConsumerGroupHeartbeatRequestData data) {
        if (data.topicPartitions() == null) {
            return null;
        }
        Map<Uuid, Set<Integer>> owned = new HashMap<>();
        data.topicPartitions().forEach(tp -> owned.computeIfAbsent(tp.topicId(), t -> new HashSet<>()).addAll(tp.partitions()));
        return Assignment.of(owned);
    }

    private static ConsumerGroupHeartbeatResponseData response(HeartbeatResult result) {
        ConsumerGroupHeartbeatResponseData response = new ConsumerGroupHeartbeatResponseData().setMemberId(result.memberId())
                .setMemberEpoch(result.memberEpoch()).setHeartbeatIntervalMs(result.heartbeatIntervalMs());
        if (result.assignment() != null) {
            List<ConsumerGroupHeartbeatResponseData.TopicPartitions> topics = new ArrayList<>();
            result.assignment().partitions().forEach((topic, partitions) -> topics.add(
                    new ConsumerGroupHeartbeatResponseData.TopicPartitions().setTopicId(topic).setPartitions(new ArrayList<>(partitions))));
            response.setAssignment(new ConsumerGroupHeartbeatResponseData.Assignment().setTopicPartitions(topics));
        }
        return response;
    }
}
