package dev.samsa.handler;

import dev.samsa.wire.KafkaRequest;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersionCollection;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiVersionsRequest;

/**
 * ApiVersions v0-4. Advertises exactly the APIs and versions of {@link Handlers}. A version this broker does not
 * serve (by that table, not by what kafka-clients knows) is answered with UNSUPPORTED_VERSION and the v0 list, as
 * Kafka does, so the client can retry with one it knows. v3+ requests with an invalid client software name or version
 * get INVALID_REQUEST. No finalized features are advertised.
 */
final class ApiVersionsHandler implements ApiHandler {

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.API_VERSIONS;
    }

    @Override
    public void handle(KafkaRequest request, BrokerContext broker) {
        ApiVersionsRequest body = (ApiVersionsRequest) request.body();
        ApiVersionsResponseData response = new ApiVersionsResponseData().setApiKeys(advertised(broker));
        if (!broker.handlers().supports(ApiKeys.API_VERSIONS, request.version())) {
            response.setErrorCode(Errors.UNSUPPORTED_VERSION.code());
        } else if (request.version() >= 3 && !body.isValid()) {
            response.setErrorCode(Errors.INVALID_REQUEST.code());
        }
        request.respond(response);
    }

    private static ApiVersionCollection advertised(BrokerContext broker) {
        ApiVersionCollection versions = new ApiVersionCollection();
        for (Handlers.Registration r : broker.handlers().all()) {
            versions.add(new ApiVersion().setApiKey(r.apiKey().id).setMinVersion(r.minVersion()).setMaxVersion(r.maxVersion()));
        }
        return versions;
    }
}
