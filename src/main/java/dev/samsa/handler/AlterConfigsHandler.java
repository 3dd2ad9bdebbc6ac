package dev.samsa.handler;

import dev.samsa.cluster.ConfigAdminManager;
import dev.samsa.wire.KafkaRequest;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterConfigsRequestData.AlterConfigsResource;
import org.apache.kafka.common.message.AlterConfigsRequestData.AlterableConfig;
import org.apache.kafka.common.message.AlterConfigsResponseData;
import org.apache.kafka.common.message.AlterConfigsResponseData.AlterConfigsResourceResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.ApiError;

/**
 * AlterConfigs v0-2, the legacy API that some tools still send (KafkaJS's {@code admin.alterConfigs} knows no other):
 * on TOPIC and BROKER resources the given configs replace every dynamic config of the resource, those not named are
 * deleted, each resource all or nothing, checked as {@link IncrementalAlterConfigsHandler} checks. A resource named
 * twice gets INVALID_REQUEST "Each resource must appear at most once."
 */
final class AlterConfigsHandler implements ApiHandler {

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.ALTER_CONFIGS;
    }

    @Override
    public void handle(KafkaRequest request, BrokerContext broker) {
        AlterConfigsRequestData data = request.data();
        Map<String, Integer> counts = new HashMap<>();
        data.resources().forEach(r -> counts.merge(r.resourceType() + "/" + r.resourceName(), 1, Integer::sum));
        ConfigAdminManager configs = new ConfigAdminManager(broker.cluster().metadata());
        AlterConfigsResponseData response = new AlterConfigsResponseData();
        for (AlterConfigsResource resource : data.resources()) {
            ApiError error = ApiError.NONE;
            try {
                Acls.requireConfigs(request, broker, AclOperation.ALTER_CONFIGS, resource.resourceType(), resource.resourceName());
                if (counts.get(resource.resourceType() + "/" + resource.resourceName()) > 1) {
                    throw new InvalidRequestException("Each resource must appear at most once.");
                }
                Map<String, String> values = new LinkedHashMap<>();
                for (AlterableConfig c : resource.configs()) {
                    values.put(c.name(), c.value());
                }
                configs.legacyAlterConfigs(ConfigResource.Type.forId(resource.resourceType()), resource.resourceName(), values,
                        data.validateOnly());
            } catch (ApiException e) {
                error = ApiError.fromThrowable(e);
            }
            response.responses().add(new AlterConfigsResourceResponse().setResourceType(resource.resourceType())
                    .setResourceName(resource.resourceName()).setErrorCode(error.error().code())
                    .setErrorMessage(KafkaRequest.fitErrorMessage(error.message())));
        }
        request.respond(response);
    }
}
