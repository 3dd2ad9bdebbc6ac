package dev.samsa.handler;

import dev.samsa.cluster.ConfigAdminManager;
import dev.samsa.wire.KafkaRequest;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterConfigsResource;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterableConfig;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.ApiError;

/**
 * IncrementalAlterConfigs v0-1 on TOPIC and BROKER resources, each resource all or nothing, as
 * {@link ConfigAdminManager} checks and applies it. A resource named twice gets INVALID_REQUEST "Each resource must
 * appear at most once." Not implemented: authorization.
 */
final class IncrementalAlterConfigsHandler implements ApiHandler {

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.INCREMENTAL_ALTER_CONFIGS;
    }

    @Override
    public void handle(KafkaRequest request, BrokerContext broker) {
        IncrementalAlterConfigsRequestData data = request.data();
        ConfigAlterations alterations = new ConfigAlterations(request, broker, data.resources(), AlterConfigsResource::resourceType,
                AlterConfigsResource::resourceName);
        ConfigAdminManager configs = new ConfigAdminManager(broker.cluster().metadata());
        IncrementalAlterConfigsResponseData response = new IncrementalAlterConfigsResponseData();
        for (AlterConfigsResource resource : data.resources()) {
            ApiError error = alterations.alter(resource.resourceType(), resource.resourceName(), () -> {
                List<ConfigAdminManager.AlterConfigOp> ops = new ArrayList<>();
                for (AlterableConfig c : resource.configs()) {
                    ops.add(new ConfigAdminManager.AlterConfigOp(c.name(), c.configOperation(), c.value()));
                }
                configs.incrementalAlterConfigs(ConfigResource.Type.forId(resource.resourceType()), resource.resourceName(),
                        ops, data.validateOnly());
            });
            response.responses().add(new AlterConfigsResourceResponse().setResourceType(resource.resourceType())
                    .setResourceName(resource.resourceName()).setErrorCode(error.error().code()).setErrorMessage(KafkaRequest.fitErrorMessage(error.message())));
        }
        request.respond(response);
    }
}
