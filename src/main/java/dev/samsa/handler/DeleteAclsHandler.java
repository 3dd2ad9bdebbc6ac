package dev.samsa.handler;

import dev.samsa.security.Authorizer;
import dev.samsa.wire.KafkaRequest;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.DeleteAclsResponseData;
import org.apache.kafka.common.message.DeleteAclsResponseData.DeleteAclsFilterResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.common.requests.DeleteAclsRequest;
import org.apache.kafka.common.requests.DeleteAclsResponse;

/**
 * DeleteAcls v1-3, as Kafka's AclApis: ALTER on the cluster or CLUSTER_AUTHORIZATION_FAILED; SECURITY_DISABLED
 * without an authorizer; else, per filter, the ACLs it matched and removed.
 */
final class DeleteAclsHandler implements ApiHandler {

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.DELETE_ACLS;
    }

    @Override
    public void handle(KafkaRequest request, BrokerContext broker) {
        Authorizer authorizer = broker.requireAuthorizer(request, AclOperation.ALTER);
        DeleteAclsResponseData response = new DeleteAclsResponseData();
        for (AclBindingFilter filter : ((DeleteAclsRequest) request.body()).filters()) {
            DeleteAclsFilterResult result = new DeleteAclsFilterResult();
            authorizer.delete(filter).forEach(acl -> result.matchingAcls().add(DeleteAclsResponse.matchingAcl(acl, ApiError.NONE)));
            response.filterResults().add(result);
        }
        request.respond(response);
    }
}
