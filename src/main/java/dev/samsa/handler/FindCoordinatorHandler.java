package dev.samsa.handler;

import dev.samsa.cluster.BrokerInfo;
import dev.samsa.wire.KafkaRequest;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.resource.ResourceType;

/**
 * FindCoordinator v0-6. Key type GROUP (v1+ carries the type): the leader of the group's {@code __consumer_offsets}
 * partition, creating the topic on first need (offsets.topic.num.partitions, offsets.topic.replication.factor,
 * cleanup.policy=compact). Key type TRANSACTION: the leader of the transactional id's {@code __transaction_state}
 * partition, creating that topic on first need the same way (transaction.state.log.*). v4+ batches keys in
 * coordinatorKeys. SHARE keys (v6) are not implemented: UNSUPPORTED_VERSION with a message saying so (a retriable
 * error would make clients retry for ever).
 */
final class FindCoordinatorHandler implements ApiHandler {

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.FIND_COORDINATOR;
    }

    @Override
    public void handle(KafkaRequest request, BrokerContext broker) {
        FindCoordinatorRequestData data = request.data();
        FindCoordinatorResponseData response = new FindCoordinatorResponseData();
        if (request.version() >= 4) {
            for (String key : data.coordinatorKeys()) {
                FindCoordinatorResponseData.Coordinator c = find(request, broker, data.keyType(), key);
                response.coordinators().add(c.setKey(key));
            }
        } else {
            FindCoordinatorResponseData.Coordinator c = find(request, broker, data.keyType(), data.key());
            response.setErrorCode(c.errorCode()).setErrorMessage(KafkaRequest.fitErrorMessage(c.errorMessage())).setNodeId(c.nodeId()).setHost(c.host())
                    .setPort(c.port());
        }
        request.respond(response);
    }

    private static FindCoordinatorResponseData.Coordinator find(KafkaRequest request, BrokerContext broker, byte keyType,
                                                               String key) {
        FindCoordinatorResponseData.Coordinator c = new FindCoordinatorResponseData.Coordinator().setNodeId(-1).setHost("").setPort(-1);
        boolean group = keyType == FindCoordinatorRequest.CoordinatorType.GROUP.id();
        if (!group && keyType != FindCoordinatorRequest.CoordinatorType.TRANSACTION.id()) {
            // Not a retriable error: a share consumer fails at once with this message instead of retrying forever.
            return c.setErrorCode(Errors.UNSUPPORTED_VERSION.code())
                    .setErrorMessage("Samsa does not implement share groups: no coordinator for key type " + keyType);
        }
        if (!broker.authorized(request, AclOperation.DESCRIBE, group ? ResourceType.GROUP : ResourceType.TRANSACTIONAL_ID, key)) {
            Errors refused = group ? Errors.GROUP_AUTHORIZATION_FAILED : Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
            return c.setErrorCode(refused.code()).setErrorMessage(refused.message());
        }
        try {
            int id = group ? broker.groups().findCoordinator(broker.brokerId(), key)
                    : broker.transactions().findCoordinator(broker.brokerId(), key);
            BrokerInfo info = broker.cluster().metadata().liveBrokers().stream().filter(b -> b.id() == id).findFirst().orElse(null);
            if (info == null) {
                return c.setErrorCode(Errors.COORDINATOR_NOT_AVAILABLE.code()).setErrorMessage("Coordinator " + id + " is not alive");
            }
            return c.setNodeId(id).setHost(info.host()).setPort(broker.advertisedPort(info, request)).setErrorCode(Errors.NONE.code());
        } catch (ApiException e) {
            return c.setErrorCode(Errors.forException(e).code()).setErrorMessage(KafkaRequest.fitErrorMessage(e.getMessage()));
        }
    }

}
