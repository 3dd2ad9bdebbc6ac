package dev.samsa.handler;

import dev.samsa.group.classic.JoinRequest;
import dev.samsa.group.classic.JoinResult;
import dev.samsa.group.classic.Protocol;
import dev.samsa.wire.KafkaRequest;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.JoinGroupRequest;

/**
 * JoinGroup v0-9 (classic protocol). v0 has no rebalance timeout (the session timeout stands in); v4+ first join
 * answers MEMBER_ID_REQUIRED with the new member id; v5+ static membership (group.instance.id); v7+ protocol type in
 * the answer; v8 reason; v9 skipAssignment for a static leader rejoining a Stable group. The request is parked until
 * the join phase completes: the answer is sent from the group's callback. Errors: INVALID_SESSION_TIMEOUT,
 * INCONSISTENT_GROUP_PROTOCOL, GROUP_MAX_SIZE_REACHED, UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID, NOT_COORDINATOR,
 * COORDINATOR_NOT_AVAILABLE. Not implemented: joining a KIP-848 consumer group (none exist).
 */
final class JoinGroupHandler implements ApiHandler {

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.JOIN_GROUP;
    }

    @Override
    public void handle(KafkaRequest request, BrokerContext broker) {
        JoinGroupRequestData data = request.data();
        broker.requireGroup(request, AclOperation.READ, data.groupId());
        short version = request.version();
        if (data.groupInstanceId() != null && version < 5) {
            respond(request, JoinResult.error(Errors.UNSUPPORTED_VERSION, data.memberId()));
            return;
        }
        try {
            if (data.groupInstanceId() != null) {
                JoinGroupRequest.validateGroupInstanceId(data.groupInstanceId());
            }
        } catch (ApiException e) {
            respond(request, JoinResult.error(Errors.forException(e), data.memberId()));
            return;
        }
        List<Protocol> protocols = new ArrayList<>();
        data.protocols().forEach(p -> protocols.add(new Protocol(p.name(), p.metadata())));
        JoinRequest join = new JoinRequest(data.groupId(), data.memberId(), data.groupInstanceId(), data.protocolType(), protocols,
                data.sessionTimeoutMs(), version >= 1 ? data.rebalanceTimeoutMs() : data.sessionTimeoutMs(), request.clientId(),
                request.clientAddress(), JoinGroupRequest.requiresKnownMemberId(version),
                JoinGroupRequest.supportsSkippingAssignment(version), data.reason());
        try {
            broker.groups().joinGroup(broker.brokerId(), join, result -> respond(request, result));
        } catch (ApiException e) {
            respond(request, JoinResult.error(Errors.forException(e), data.memberId()));
        }
    }

    private static void respond(KafkaRequest request, JoinResult r) {
        boolean nullable = request.version() >= 7;
        JoinGroupResponseData response = new JoinGroupResponseData()
                .setErrorCode(r.error().code())
                .setGenerationId(r.generationId())
                .setProtocolType(nullable ? r.protocolType() : null)
                .setProtocolName(r.protocolName() == null && !nullable ? "" : r.protocolName())
                .setLeader(r.leader() == null ? "" : r.leader())
                .setSkipAssignment(r.skipAssignment())
                .setMemberId(r.memberId() == null ? "" : r.memberId());
        for (JoinResult.JoinedMember m : r.members()) {
            response.members().add(new JoinGroupResponseData.JoinGroupResponseMember().setMemberId(m.memberId())
                    .setGroupInstanceId(m.groupInstanceId()).setMetadata(m.metadata()));
        }
        request.respond(response);
    }
}
