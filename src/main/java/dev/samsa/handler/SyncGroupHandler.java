package dev.samsa.handler;

import dev.samsa.group.classic.SyncResult;
import dev.samsa.cluster.ConsumerHistory;
import dev.samsa.wire.KafkaRequest;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * SyncGroup v0-5 (classic protocol). The leader's request carries every member's assignment; followers are parked
 * until it arrives. v3+ static membership; v5+ protocol type and name checked (INCONSISTENT_GROUP_PROTOCOL) and
 * returned. Errors: UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION, FENCED_INSTANCE_ID, REBALANCE_IN_PROGRESS, NOT_COORDINATOR.
 */
final class SyncGroupHandler implements ApiHandler {

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.SYNC_GROUP;
    }

    @Override
    public void handle(KafkaRequest request, BrokerContext broker) {
        SyncGroupRequestData data = request.data();
        broker.requireGroup(request, AclOperation.READ, data.groupId());
        Map<String, byte[]> assignments = new HashMap<>();
        data.assignments().forEach(a -> assignments.put(a.memberId(), a.assignment()));
        try {
            broker.groups().syncGroup(broker.brokerId(), data.groupId(), data.memberId(), data.groupInstanceId(), data.generationId(),
                    request.version() >= 5 ? data.protocolType() : null, request.version() >= 5 ? data.protocolName() : null,
                    assignments, request.clientAddress(), result -> {
                        if (result.error() == Errors.NONE) {
                            broker.cluster().consumerHistory().member(new ConsumerHistory.Member(data.groupId(),
                                    data.memberId(), data.generationId(), request.clientId()));
                        }
                        respond(request, result);
                    });
        } catch (ApiException e) {
            respond(request, SyncResult.error(Errors.forException(e)));
        }
    }

    private static void respond(KafkaRequest request, SyncResult r) {
        request.respond(new SyncGroupResponseData().setErrorCode(r.error().code()).setProtocolType(r.protocolType())
                .setProtocolName(r.protocolName()).setAssignment(r.assignment()));
    }
}
