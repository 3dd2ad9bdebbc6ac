package dev.samsa.handler;

import dev.samsa.security.Authorizer;
import dev.samsa.wire.KafkaRequest;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.CreateAclsRequestData;
import org.apache.kafka.common.message.CreateAclsRequestData.AclCreation;
import org.apache.kafka.common.message.CreateAclsResponseData;
import org.apache.kafka.common.message.CreateAclsResponseData.AclCreationResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.common.requests.CreateAclsRequest;
import org.apache.kafka.common.resource.ResourceType;

/**
 * CreateAcls v1-3, as Kafka's AclApis: ALTER on the cluster or CLUSTER_AUTHORIZATION_FAILED; SECURITY_DISABLED when
 * the cluster has no authorizer; per ACL, INVALID_REQUEST for a CLUSTER resource not named kafka-cluster or an empty
 * name (the request's decoding already refuses ANY/UNKNOWN types and MATCH patterns).
 */
final class CreateAclsHandler implements ApiHandler {

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.CREATE_ACLS;
    }

    @Override
    public void handle(KafkaRequest request, BrokerContext broker) {
        Authorizer authorizer = broker.requireAuthorizer(request, AclOperation.ALTER);
        CreateAclsRequestData data = request.data();
        CreateAclsResponseData response = new CreateAclsResponseData();
        for (AclCreation creation : data.creations()) {
            ApiError error = validate(creation);
            if (error.isSuccess()) {
                authorizer.add(CreateAclsRequest.aclBinding(creation));
            }
            response.results().add(new AclCreationResult().setErrorCode(error.error().code())
                    .setErrorMessage(error.isSuccess() ? null : error.message()));
        }
        request.respond(response);
    }

    private static ApiError validate(AclCreation creation) {
        AclBinding binding;
        try {
            binding = CreateAclsRequest.aclBinding(creation);
        } catch (IllegalArgumentException e) {
            return new ApiError(Errors.INVALID_REQUEST, e.getMessage());
        }
        if (binding.isUnknown()) {
            return new ApiError(Errors.INVALID_REQUEST, "Invalid ACL creation: " + binding);
        }
        if (binding.pattern().resourceType() == ResourceType.CLUSTER && !binding.pattern().name().equals(Acls.CLUSTER_NAME)) {
            return new ApiError(Errors.INVALID_REQUEST, "The only valid name for the CLUSTER resource is " + Acls.CLUSTER_NAME);
        }
        if (binding.pattern().name().isEmpty()) {
            return new ApiError(Errors.INVALID_REQUEST, "Invalid empty resource name");
        }
        return ApiError.NONE;
    }
}
