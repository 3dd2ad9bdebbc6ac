package dev.samsa.handler;

import dev.samsa.cluster.ClusterMetadata;
import dev.samsa.cluster.ConfigEntry;
import dev.samsa.cluster.ConfigHelper;
import dev.samsa.cluster.Topic;
import dev.samsa.wire.KafkaRequest;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsRequestData.DescribeConfigsResource;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResourceResult;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResult;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsSynonym;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.common.requests.DescribeConfigsResponse.ConfigSource;
import org.apache.kafka.common.requests.DescribeConfigsResponse.ConfigType;

/**
 * DescribeConfigs v1-4, for TOPIC and BROKER resources (others get INVALID_REQUEST), with the values and sources
 * {@link ConfigHelper} computes. configurationKeys filters by name (null or empty: all); synonyms (v1+) and
 * documentation (v3+) only when asked. A topic is described as the receiving broker applies it; a missing topic gets
 * UNKNOWN_TOPIC_OR_PARTITION. A broker name that is not empty nor a live broker's id gets INVALID_REQUEST.
 * Not implemented: BROKER_LOGGER, GROUP and CLIENT_METRICS resources; authorization.
 */
final class DescribeConfigsHandler implements ApiHandler {

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.DESCRIBE_CONFIGS;
    }

    @Override
    public void handle(KafkaRequest request, BrokerContext broker) {
        DescribeConfigsRequestData data = request.data();
        DescribeConfigsResponseData response = new DescribeConfigsResponseData();
        for (DescribeConfigsResource resource : data.resources()) {
            DescribeConfigsResult result;
            try {
                Acls.requireConfigs(request, broker, AclOperation.DESCRIBE_CONFIGS, resource.resourceType(), resource.resourceName());
                result = describe(resource, data.includeSynonyms(), data.includeDocumentation(), broker);
            } catch (ApiException e) {
                ApiError error = ApiError.fromThrowable(e);
                result = new DescribeConfigsResult().setErrorCode(error.error().code()).setErrorMessage(KafkaRequest.fitErrorMessage(error.message()));
            }
            response.results().add(result.setResourceType(resource.resourceType()).setResourceName(resource.resourceName()));
        }
        request.respond(response);
    }

    private static DescribeConfigsResult describe(DescribeConfigsResource resource, boolean synonyms, boolean docs,
                                                  BrokerContext broker) {
        ClusterMetadata metadata = broker.cluster().metadata();
        List<ConfigEntry> entries;
        switch (ConfigResource.Type.forId(resource.resourceType())) {
            case TOPIC -> {
                org.apache.kafka.common.internals.Topic.validate(resource.resourceName());
                Topic topic = metadata.topic(resource.resourceName());
                if (topic == null) {
                    return new DescribeConfigsResult().setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
                }
                entries = ConfigHelper.describeTopic(topic.configs(), metadata.effectiveConfig(topic, broker.brokerId()),
                        broker.configs());
            }
            case BROKER -> entries = ConfigHelper.describeBroker(resource.resourceName(), metadata);
            default -> throw new InvalidRequestException("Unsupported resource type: "
                    + ConfigResource.Type.forId(resource.resourceType()));
        }
        List<String> keys = resource.configurationKeys();
        List<DescribeConfigsResourceResult> results = new ArrayList<>();
        for (ConfigEntry e : entries) {
            if (keys == null || keys.isEmpty() || keys.contains(e.name())) {
                results.add(result(e, synonyms, docs));
            }
        }
        return new DescribeConfigsResult().setErrorCode(Errors.NONE.code()).setConfigs(results);
    }

    private static DescribeConfigsResourceResult result(ConfigEntry e, boolean includeSynonyms, boolean docs) {
        List<DescribeConfigsSynonym> synonyms = new ArrayList<>();
        if (includeSynonyms) {
            for (ConfigEntry.Synonym s : e.synonyms()) {
                synonyms.add(new DescribeConfigsSynonym().setName(s.name()).setValue(s.value()).setSource(source(s.source())));
            }
        }
        DescribeConfigsResourceResult result = new DescribeConfigsResourceResult()
                .setName(e.name())
                .setValue(e.value())
                .setReadOnly(e.readOnly())
                .setIsSensitive(false)
                .setConfigSource(source(e.source()))
                .setSynonyms(synonyms)
                .setConfigType(ConfigType.valueOf(e.type().name()).id());
        if (!docs) {
            return result.setDocumentation(null);
        }
        // Kafka keeps a broker config's documentation in its server jars, not in kafka-clients: the default, "".
        return e.documentation() == null ? result : result.setDocumentation(e.documentation());
    }

    static byte source(ConfigEntry.Source source) {
        return ConfigSource.valueOf(source.name()).id();
    }
}
