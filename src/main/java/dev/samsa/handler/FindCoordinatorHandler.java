package dev.samsa.handler;

import dev.samsa.cluster.BrokerInfo;
import dev.samsa.wire.KafkaRequest;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FindCoordinatorRequest;

/**
 * FindCoordinator v0-6. Key type GROUP (v1+ carries the type): the leader of the group's {@code __consumer_offsets}
 * partition, creating the topic on first need (offsets.topic.num.partitions, offsets.topic.replication.factor,
 * cleanup.policy=compact). v4+ batches keys in coordinatorKeys. Until transactions exist, TRANSACTION keys answer
 * UNSUPPORTED_VERSION with a message saying so (Kafka serves them; a retriable error would make clients retry for
 * ever); SHARE keys (v6) are not implemented and answer the same.
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
        if (keyType != FindCoordinatorRequest.CoordinatorType.GROUP.id()) {
            // Not a retriable error: a transactional producer fails at once with this message instead of retrying forever.
            return c.setErrorCode(Errors.UNSUPPORTED_VERSION.code())
                    .setErrorMessage("Samsa does not implement transactions yet: transactional.id and exactly-once processing "
                            + "need a transaction coordinator (key type " + keyType + ")");
        }
        try {
            int id = broker.groups().findCoordinator(broker.brokerId(), key);
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
