package dev.samsa.handler;

import dev.samsa.wire.KafkaRequest;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * Heartbeat v0-4 (classic protocol). Re-arms the member's session; REBALANCE_IN_PROGRESS tells it to rejoin. v3+
 * static membership (FENCED_INSTANCE_ID). Errors: UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION, NOT_COORDINATOR,
 * COORDINATOR_NOT_AVAILABLE. The member's wall-time heartbeat gaps feed the liveness rule of a manual clock.
 */
final class HeartbeatHandler implements ApiHandler {

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.HEARTBEAT;
    }

    @Override
    public void handle(KafkaRequest request, BrokerContext broker) {
        HeartbeatRequestData data = request.data();
        broker.requireGroup(request, AclOperation.READ, data.groupId());
        Errors error = Errors.NONE;
        try {
            broker.groups().heartbeat(broker.brokerId(), data.groupId(), data.memberId(), data.groupInstanceId(), data.generationId(),
                    request.clientAddress());
        } catch (ApiException e) {
            error = Errors.forException(e);
        }
        request.respond(new HeartbeatResponseData().setErrorCode(error.code()));
    }
}
