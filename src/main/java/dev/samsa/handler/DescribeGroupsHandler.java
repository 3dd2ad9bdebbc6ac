package dev.samsa.handler;

import dev.samsa.group.classic.ClassicGroup;
import dev.samsa.group.classic.ClassicGroupMember;
import dev.samsa.group.classic.ClassicGroupState;
import dev.samsa.wire.KafkaRequest;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroup;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/**
 * DescribeGroups v0-6: state, protocol type, protocol (when Stable) and members with client id, host, instance id
 * (v4+), and their metadata and assignment when Stable, as Kafka's {@code ClassicGroup.describe}. An unknown group is
 * described as Dead with no members, or GROUP_ID_NOT_FOUND from v6. Authorized operations (v3+) when asked, for
 * each group answered without an error, as Kafka.
 */
final class DescribeGroupsHandler implements ApiHandler {

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.DESCRIBE_GROUPS;
    }

    @Override
    public void handle(KafkaRequest request, BrokerContext broker) {
        DescribeGroupsRequestData data = request.data();
        DescribeGroupsResponseData response = new DescribeGroupsResponseData();
        for (String groupId : data.groups()) {
            DescribedGroup d = new DescribedGroup().setGroupId(groupId).setProtocolType("").setProtocolData("");
            response.groups().add(d);
            try {
                broker.requireGroup(request, AclOperation.DESCRIBE, groupId);
                ClassicGroup g = broker.groups().describeGroup(broker.brokerId(), groupId);
                if (g == null || g.isInState(ClassicGroupState.DEAD)) {
                    d.setGroupState(ClassicGroupState.DEAD.toString());
                    if (request.version() >= 6) {
                        d.setErrorCode(Errors.GROUP_ID_NOT_FOUND.code()).setErrorMessage("Group " + groupId + " not found.");
                    }
                    continue;
                }
                boolean stable = g.isInState(ClassicGroupState.STABLE);
                d.setGroupState(g.state().toString()).setProtocolType(g.protocolType() == null ? "" : g.protocolType())
                        .setProtocolData(stable ? g.protocolName() : "");
                for (ClassicGroupMember m : g.allMembers()) {
                    d.members().add(new DescribeGroupsResponseData.DescribedGroupMember().setMemberId(m.memberId())
                            .setGroupInstanceId(m.groupInstanceId()).setClientId(m.clientId()).setClientHost(m.clientHost())
                            .setMemberMetadata(stable ? m.metadata(g.protocolName()) : new byte[0])
                            .setMemberAssignment(stable ? m.assignment() : new byte[0]));
                }
            } catch (ApiException e) {
                d.setErrorCode(Errors.forException(e).code()).setGroupState("");
            }
        }
        if (request.version() >= 3 && data.includeAuthorizedOperations()) {
            response.groups().stream().filter(g -> g.errorCode() == Errors.NONE.code()).forEach(g -> g.setAuthorizedOperations(
                    broker.authorizedOperations(request, ResourceType.GROUP, g.groupId())));
        }
        request.respond(response);
    }
}
