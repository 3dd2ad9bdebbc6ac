package dev.samsa.handler;

import dev.samsa.cluster.ClientQuotas;
import dev.samsa.wire.KafkaRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.DescribeClientQuotasRequestData;
import org.apache.kafka.common.message.DescribeClientQuotasResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.common.resource.ResourceType;

/**
 * DescribeClientQuotas v0-1, as Kafka's broker answers from its metadata image ({@code ClientQuotasImage.describe}):
 * the entities matching every filter component (exact name, default, or any name of a type; with {@code strict}, no
 * other types), with their values; an invalid filter is the error of the whole answer, with Kafka's message, and no
 * entries. CLUSTER_AUTHORIZATION_FAILED without DESCRIBE_CONFIGS on the cluster.
 */
final class DescribeClientQuotasHandler implements ApiHandler {

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.DESCRIBE_CLIENT_QUOTAS;
    }

    @Override
    public void handle(KafkaRequest request, BrokerContext broker) {
        DescribeClientQuotasRequestData data = request.data();
        DescribeClientQuotasResponseData response = new DescribeClientQuotasResponseData();
        if (!broker.authorized(request, AclOperation.DESCRIBE_CONFIGS, ResourceType.CLUSTER, Acls.CLUSTER_NAME)) {
            request.respond(response.setErrorCode(Errors.CLUSTER_AUTHORIZATION_FAILED.code())
                    .setErrorMessage(Errors.CLUSTER_AUTHORIZATION_FAILED.message()).setEntries(null));
            return;
        }
        List<ClientQuotas.Component> filter = new ArrayList<>();
        data.components().forEach(c -> filter.add(new ClientQuotas.Component(c.entityType(), c.matchType(), c.match())));
        Map<Map<String, String>, Map<String, Double>> matching;
        try {
            matching = broker.cluster().clientQuotas().describe(filter, data.strict());
        } catch (ApiException e) {
            ApiError error = ApiError.fromThrowable(e);
            request.respond(response.setErrorCode(error.error().code()).setErrorMessage(error.message()).setEntries(null));
            return;
        }
        matching.forEach((entity, values) -> {
            DescribeClientQuotasResponseData.EntryData entry = new DescribeClientQuotasResponseData.EntryData();
            entity.forEach((type, name) -> entry.entity().add(new DescribeClientQuotasResponseData.EntityData()
                    .setEntityType(type).setEntityName(name)));
            values.forEach((key, value) -> entry.values().add(new DescribeClientQuotasResponseData.ValueData()
                    .setKey(key).setValue(value)));
            response.entries().add(entry);
        });
        request.respond(response);
    }
}
