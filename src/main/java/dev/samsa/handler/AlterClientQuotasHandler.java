package dev.samsa.handler;

import dev.samsa.wire.KafkaRequest;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.message.AlterClientQuotasRequestData;
import org.apache.kafka.common.message.AlterClientQuotasResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.common.resource.ResourceType;

/**
 * AlterClientQuotas v0-1, as Kafka's controller ({@code ClientQuotaControlManager.alterClientQuotas}) answers it: each
 * entity all or nothing, a removal by {@code remove}, a key named twice or an entity named twice INVALID_REQUEST, an
 * invalid entity, key or value INVALID_REQUEST with Kafka's message; CLUSTER_AUTHORIZATION_FAILED for every entity
 * without ALTER_CONFIGS on the cluster. Stored, not enforced (see {@link dev.samsa.cluster.ClientQuotas}).
 */
final class AlterClientQuotasHandler implements ApiHandler {

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.ALTER_CLIENT_QUOTAS;
    }

    @Override
    public void handle(KafkaRequest request, BrokerContext broker) {
        AlterClientQuotasRequestData data = request.data();
        boolean authorized = broker.authorized(request, AclOperation.ALTER_CONFIGS, ResourceType.CLUSTER, Acls.CLUSTER_NAME);
        Set<Map<String, String>> seen = new HashSet<>();
        AlterClientQuotasResponseData response = new AlterClientQuotasResponseData();
        for (AlterClientQuotasRequestData.EntryData entry : data.entries()) {
            Map<String, String> entity = new LinkedHashMap<>();
            AlterClientQuotasResponseData.EntryData answer = new AlterClientQuotasResponseData.EntryData();
            ApiError error = ApiError.NONE;
            try {
                for (AlterClientQuotasRequestData.EntityData e : entry.entity()) {
                    if (entity.containsKey(e.entityType())) {
                        throw new InvalidRequestException("Invalid client quota entity, duplicate entity entry " + e.entityType());
                    }
                    entity.put(e.entityType(), e.entityName());
                    answer.entity().add(new AlterClientQuotasResponseData.EntityData().setEntityType(e.entityType())
                            .setEntityName(e.entityName()));
                }
                if (!authorized) {
                    throw Errors.CLUSTER_AUTHORIZATION_FAILED.exception();
                }
                if (!seen.add(entity)) {
                    throw new InvalidRequestException("Ignoring duplicate entity " + entity);
                }
                Map<String, Double> values = new HashMap<>();
                for (AlterClientQuotasRequestData.OpData op : entry.ops()) {
                    if (values.containsKey(op.key())) {
                        throw new InvalidRequestException("Duplicate quota key " + op.key()
                                + " not updating quota for this entity " + entity);
                    }
                    values.put(op.key(), op.remove() ? null : op.value());
                }
                broker.cluster().clientQuotas().alter(entity, values, data.validateOnly());
            } catch (ApiException e) {
                error = ApiError.fromThrowable(e);
            }
            response.entries().add(answer.setErrorCode(error.error().code()).setErrorMessage(error.message()));
        }
        request.respond(response);
    }
}
