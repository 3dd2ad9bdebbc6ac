package dev.samsa.handler;

import dev.samsa.group.classic.ClassicGroupLiveness.Leaving;
import dev.samsa.wire.KafkaRequest;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * LeaveGroup v0-5 (classic protocol). v0-2: one member id, its error at top level. v3+: a batch of members by member
 * id and/or group.instance.id (the admin's removeMembersFromConsumerGroup uses instance ids with an empty member id),
 * one error per member. v5 reason. The group rebalances when a member left.
 */
final class LeaveGroupHandler implements ApiHandler {

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.LEAVE_GROUP;
    }

    @Override
    public void handle(KafkaRequest request, BrokerContext broker) {
        LeaveGroupRequestData data = request.data();
        broker.requireGroup(request, AclOperation.READ, data.groupId());
        List<Leaving> leaving = new ArrayList<>();
        if (request.version() < 3) {
            leaving.add(new Leaving(data.memberId(), null, "not provided"));
        } else {
            data.members().forEach(m -> leaving.add(new Leaving(m.memberId(), m.groupInstanceId(),
                    m.reason() == null ? "not provided" : m.reason())));
        }
        LeaveGroupResponseData response = new LeaveGroupResponseData();
        try {
            List<Errors> errors = broker.groups().leaveGroup(broker.brokerId(), data.groupId(), leaving);
            if (request.version() < 3) {
                response.setErrorCode(errors.get(0).code());
            } else {
                for (int i = 0; i < leaving.size(); i++) {
                    response.members().add(new LeaveGroupResponseData.MemberResponse().setMemberId(leaving.get(i).memberId())
                            .setGroupInstanceId(leaving.get(i).groupInstanceId()).setErrorCode(errors.get(i).code()));
                }
            }
        } catch (ApiException e) {
            response.setErrorCode(Errors.forException(e).code());
        }
        request.respond(response);
    }
}
