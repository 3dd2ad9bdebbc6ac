package dev.samsa.handler;

import dev.samsa.cluster.Topic;
import dev.samsa.group.modern.Assignment;
import dev.samsa.group.modern.consumer.ConsumerGroup;
import dev.samsa.group.modern.consumer.ConsumerGroupMember;
import dev.samsa.wire.KafkaRequest;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.ConsumerGroupDescribeRequestData;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/**
 * ConsumerGroupDescribe v0-1 (KIP-848): per group its state, group epoch, target assignment epoch, assignor, and each
 * member's epoch, subscription, current and target assignment (topic id and name). v1 adds the member type (1,
 * consumer). Errors per group: GROUP_ID_NOT_FOUND (none, or a classic group), INVALID_GROUP_ID, NOT_COORDINATOR,
 * COORDINATOR_NOT_AVAILABLE. Authorized operations when asked, for each group answered without an error, as Kafka.
 */
final class ConsumerGroupDescribeHandler implements ApiHandler {

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.CONSUMER_GROUP_DESCRIBE;
    }

    @Override
    public void handle(KafkaRequest request, BrokerContext broker) {
        ConsumerGroupDescribeRequestData data = request.data();
        ConsumerGroupDescribeResponseData response = new ConsumerGroupDescribeResponseData();
        for (String groupId : data.groupIds()) {
            try {
                broker.requireGroup(request, AclOperation.DESCRIBE, groupId);
                ConsumerGroup group = broker.groups().describeConsumerGroup(broker.brokerId(), groupId);
                response.groups().add(describe(group, broker.groups().assignorName(group), broker).setAuthorizedOperations(
                        data.includeAuthorizedOperations() ? broker.authorizedOperations(request, ResourceType.GROUP, groupId)
                                : Acls.NOT_REQUESTED));
            } catch (ApiException e) {
                response.groups().add(new ConsumerGroupDescribeResponseData.DescribedGroup().setGroupId(groupId)
                        .setErrorCode(Errors.forException(e).code()).setErrorMessage(e.getMessage()));
            }
        }
        request.respond(response);
    }

    private static ConsumerGroupDescribeResponseData.DescribedGroup describe(ConsumerGroup group, String assignor, BrokerContext broker) {
        List<ConsumerGroupDescribeResponseData.Member> members = new ArrayList<>();
        for (ConsumerGroupMember m : group.members()) {
            members.add(new ConsumerGroupDescribeResponseData.Member().setMemberId(m.memberId()).setInstanceId(m.instanceId())
                    .setRackId(m.rackId()).setMemberEpoch(m.memberEpoch()).setClientId(m.clientId()).setClientHost(m.clientHost())
                    .setSubscribedTopicNames(m.subscribedTopicNames()).setSubscribedTopicRegex(m.subscribedTopicRegex())
                    .setAssignment(assignment(m.assignedPartitions(), broker))
                    .setTargetAssignment(assignment(group.targetAssignment(m.memberId()), broker))
                    // KIP-1099: 0 for a member of the classic protocol, 1 for one of the consumer protocol (Admin's upgraded()).
                    .setMemberType(group.usesClassicProtocol(m.memberId()) ? (byte) 0 : (byte) 1));
        }
        return new ConsumerGroupDescribeResponseData.DescribedGroup().setGroupId(group.groupId()).setGroupState(group.stateName())
                .setGroupEpoch(group.groupEpoch()).setAssignmentEpoch(group.targetAssignmentEpoch()).setAssignorName(assignor)
                .setMembers(members);
    }

    private static ConsumerGroupDescribeResponseData.Assignment assignment(Assignment a, BrokerContext broker) {
        List<ConsumerGroupDescribeResponseData.TopicPartitions> topics = new ArrayList<>();
        a.partitions().forEach((id, partitions) -> {
            Topic t = broker.cluster().metadata().topic(id);
            if (t != null) {
                topics.add(new ConsumerGroupDescribeResponseData.TopicPartitions().setTopicId(id).setTopicName(t.name())
                        .setPartitions(new ArrayList<>(partitions)));
            }
        });
        return new ConsumerGroupDescribeResponseData.Assignment().setTopicPartitions(topics);
    }
}
