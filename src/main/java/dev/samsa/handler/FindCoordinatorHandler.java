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
 * cleanup.policy=compact). v4+ batches keys in coordinatorKeys. TRANSACTION keys answer COORDINATOR_NOT_AVAILABLE
 * until transactions exist; SHARE keys (v6) are not implemented and answer the same.
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
                FindCoordinatorResponseData.Coordinator c = find(broker, data.keyType(), key);
                response.coordinators().add(c.setKey(key));
            }
        } else {
            FindCoordinatorResponseData.Coordinator c = find(broker, data.keyType(), data.key());
            response.setErrorCode(c.errorCode()).setErrorMessage(c.errorMessage()).setNodeId(c.nodeId()).setHost(c.host())
                    .setPort(c.port());
        }
        request.respond(response);
    }

    private static FindCoordinatorResponseData.Coordinator find(BrokerContext broker, byte keyType, String key) {
        FindCoordinatorResponseData.Coordinator c = new FindCoordinatorResponseData.Coordinator().setNodeId(-1).setHost("").setPort(-1);
        if (keyType != FindCoordinatorRequest.CoordinatorType.GROUP.id()) {
            return c.setErrorCode(Errors.COORDINATOR_NOT_AVAILABLE.code())
                    .setErrorMessage("Only group coordinators exist in Samsa so far; key type " + keyType + " is not served");
        }
        try {
            int id = broker.groups().findCoordinator(broker.brokerId(), key);
            BrokerInfo info = broker.cluster().metadata().liveBrokers().stream().filter(b -> b.id() == id).findFirst().orElse(null);
            if (info == null) {
                return c.setErrorCode(Errors.COORDINATOR_NOT_AVAILABLE.code()).setErrorMessage("Coordinator " + id + " is not alive");
            }
            return c.setNodeId(id).setHost(info.host()).setPort(info.port()).setErrorCode(Errors.NONE.code());
        } catch (ApiException e) {
            return c.setErrorCode(Errors.forException(e).code()).setErrorMessage(e.getMessage());
        }
    }

}
