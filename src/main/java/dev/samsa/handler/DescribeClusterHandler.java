package dev.samsa.handler;

import dev.samsa.cluster.BrokerInfo;
import dev.samsa.cluster.ClusterMetadata;
import dev.samsa.wire.KafkaRequest;
import org.apache.kafka.clients.admin.EndpointType;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.DescribeClusterResponseData.DescribeClusterBroker;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/**
 * DescribeCluster v0-2: cluster id, controller id and the live brokers, as a Kafka broker answers (Kafka's AuthHelper).
 * <ul>
 * <li>v1: endpointType must be BROKER (1); CONTROLLER gets MISMATCHED_ENDPOINT_TYPE, anything else
 * UNSUPPORTED_ENDPOINT_TYPE (both INVALID_REQUEST in v0, where the field is always BROKER).</li>
 * <li>clusterAuthorizedOperations: Integer.MIN_VALUE unless asked; when asked, the cluster operations the principal
 * may do (all of them without ACLs), or 0 for a principal without DESCRIBE on the cluster, as Kafka.</li>
 * <li>v2: includeFencedBrokers changes nothing, since a broker that is down is not registered; isFenced is false.</li>
 * </ul>
 * The controller id is the lowest live broker id, which also serves as the controller in Samsa (Kafka's KRaft
 * brokers answer a random live broker id).
 */
final class DescribeClusterHandler implements ApiHandler {

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.DESCRIBE_CLUSTER;
    }

    @Override
    public void handle(KafkaRequest request, BrokerContext broker) {
        DescribeClusterRequestData data = request.data();
        EndpointType requested = EndpointType.fromId(data.endpointType());
        if (requested != EndpointType.BROKER) {
            boolean unknown = requested == EndpointType.UNKNOWN;
            Errors error = request.version() == 0 ? Errors.INVALID_REQUEST
                    : unknown ? Errors.UNSUPPORTED_ENDPOINT_TYPE : Errors.MISMATCHED_ENDPOINT_TYPE;
            request.respond(new DescribeClusterResponseData().setErrorCode(error.code()).setErrorMessage(unknown
                    ? "Unsupported endpoint type " + data.endpointType()
                    : "The request was sent to an endpoint of type " + EndpointType.BROKER
                            + ", but we wanted an endpoint of type " + requested));
            return;
        }
        ClusterMetadata metadata = broker.cluster().metadata();
        DescribeClusterResponseData response = new DescribeClusterResponseData()
                .setClusterId(metadata.clusterId())
                .setControllerId(metadata.controllerId())
                .setEndpointType(EndpointType.BROKER.id())
                .setClusterAuthorizedOperations(data.includeClusterAuthorizedOperations()
                        ? clusterAuthorizedOperations(request, broker) : Acls.NOT_REQUESTED);
        for (BrokerInfo b : metadata.liveBrokers()) {
            response.brokers().add(new DescribeClusterBroker().setBrokerId(b.id()).setHost(b.host()).setPort(broker.advertisedPort(b, request))
                    .setRack(b.rack()).setIsFenced(false));
        }
        request.respond(response);
    }

    /** As Kafka's AuthHelper: 0 unless the principal may DESCRIBE the cluster. */
    static int clusterAuthorizedOperations(KafkaRequest request, BrokerContext broker) {
        return broker.authorizedQuietly(request, AclOperation.DESCRIBE, ResourceType.CLUSTER, Acls.CLUSTER_NAME)
                ? broker.authorizedOperations(request, ResourceType.CLUSTER, Acls.CLUSTER_NAME) : 0;
    }
}
