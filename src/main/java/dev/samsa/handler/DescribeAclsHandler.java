package dev.samsa.handler;

import dev.samsa.security.Authorizer;
import dev.samsa.wire.KafkaRequest;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.DescribeAclsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DescribeAclsRequest;
import org.apache.kafka.common.requests.DescribeAclsResponse;

/**
 * DescribeAcls v1-3, as Kafka's AclApis: DESCRIBE on the cluster or CLUSTER_AUTHORIZATION_FAILED; SECURITY_DISABLED
 * ("No Authorizer is configured on the broker") without an authorizer; else the ACLs the filter matches, grouped by
 * resource.
 */
final class DescribeAclsHandler implements ApiHandler {

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.DESCRIBE_ACLS;
    }

    @Override
    public void handle(KafkaRequest request, BrokerContext broker) {
        broker.requireCluster(request, AclOperation.DESCRIBE);
        Authorizer authorizer = broker.security().authorizer();
        DescribeAclsResponseData response = new DescribeAclsResponseData();
        if (!authorizer.enabled()) {
            response.setErrorCode(Errors.SECURITY_DISABLED.code()).setErrorMessage("No Authorizer is configured on the broker");
        } else {
            DescribeAclsRequest body = (DescribeAclsRequest) request.body();
            response.setResources(DescribeAclsResponse.aclsResources(authorizer.describe(body.filter())));
        }
        request.respond(response);
    }
}
