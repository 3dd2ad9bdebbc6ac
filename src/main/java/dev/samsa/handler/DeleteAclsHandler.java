package dev.samsa.handler;

import dev.samsa.security.Authorizer;
import dev.samsa.wire.KafkaRequest;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.DeleteAclsResponseData;
import org.apache.kafka.common.message.DeleteAclsResponseData.DeleteAclsFilterResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.common.requests.DeleteAclsRequest;
import org.apache.kafka.common.requests.DeleteAclsResponse;

/**
 * DeleteAcls v1-3, as Kafka's AclApis: ALTER on the cluster or CLUSTER_AUTHORIZATION_FAILED; SECURITY_DISABLED
 * without an authorizer; else, per filter, the ACLs it matched and removed (INVALID_REQUEST for a filter with an
 * unknown part).
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
        List<AclBindingFilter> valid = new ArrayList<>();
        // As Kafka's AclControlManager: every filter sees the ACLs as they were, and the removals apply together, so a
        // binding two filters match is reported by both.
        for (AclBindingFilter filter : ((DeleteAclsRequest) request.body()).filters()) {
            DeleteAclsFilterResult result = new DeleteAclsFilterResult();
            String invalid = filter.patternFilter().isUnknown() ? "Unknown patternFilter."
                    : filter.entryFilter().isUnknown() ? "Unknown entryFilter." : null;
            if (invalid != null) {
                result.setErrorCode(Errors.INVALID_REQUEST.code()).setErrorMessage(invalid);
            } else {
                valid.add(filter);
                authorizer.describe(filter).forEach(acl -> result.matchingAcls().add(DeleteAclsResponse.matchingAcl(acl, ApiError.NONE)));
            }
            response.filterResults().add(result);
        }
        valid.forEach(authorizer::delete);
        request.respond(response);
    }
}
