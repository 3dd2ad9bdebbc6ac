package dev.samsa.handler;

import dev.samsa.wire.KafkaRequest;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * DeleteGroups v0-3: deletes Empty groups with their offsets (tombstones in {@code __consumer_offsets}). Errors per
 * group: NON_EMPTY_GROUP, GROUP_ID_NOT_FOUND, NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE; v3 adds the error's message
 * to the group's result, as Kafka 4.4 fills it from the error.
 */
final class DeleteGroupsHandler implements ApiHandler {

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.DELETE_GROUPS;
    }

    @Override
    public void handle(KafkaRequest request, BrokerContext broker) {
        DeleteGroupsRequestData data = request.data();
        DeleteGroupsResponseData response = new DeleteGroupsResponseData();
        for (String groupId : data.groupsNames()) {
            Errors error = Errors.NONE;
            String message = null;
            try {
                broker.requireGroup(request, AclOperation.DELETE, groupId);
                broker.groups().deleteGroup(broker.brokerId(), groupId);
            } catch (ApiException e) {
                error = Errors.forException(e);
                message = e.getMessage();
            }
            DeleteGroupsResponseData.DeletableGroupResult result =
                    new DeleteGroupsResponseData.DeletableGroupResult().setGroupId(groupId).setErrorCode(error.code());
            if (request.version() >= 3) {
                result.setErrorMessage(message);
            }
            response.results().add(result);
        }
        request.respond(response);
    }
}
