package dev.samsa.handler;

import dev.samsa.cluster.ClusterMetadata;
import dev.samsa.wire.KafkaRequest;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersionCollection;
import org.apache.kafka.common.message.ApiVersionsResponseData.FinalizedFeatureKey;
import org.apache.kafka.common.message.ApiVersionsResponseData.FinalizedFeatureKeyCollection;
import org.apache.kafka.common.message.ApiVersionsResponseData.SupportedFeatureKey;
import org.apache.kafka.common.message.ApiVersionsResponseData.SupportedFeatureKeyCollection;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiVersionsRequest;

/**
 * ApiVersions v0-5. Advertises exactly the APIs and versions of {@link Handlers}. A version this broker does not
 * serve (by that table, not by what kafka-clients knows) is answered with UNSUPPORTED_VERSION and the v0 list, as
 * Kafka does, so the client can retry with one it knows. v3+ requests with an invalid client software name or version
 * get INVALID_REQUEST, as does a v5 request that names a cluster id without a node id or the other way round.
 *
 * <p>v5 (KIP-1242): a client that knows the cluster names the cluster id and node id it means to reach; a broker of
 * another cluster, or another broker, answers REBOOTSTRAP_REQUIRED, and the client bootstraps again instead of using a
 * broker it did not mean. A broker keeps its id and its cluster's id across a restart, so a client that reconnects
 * after one is accepted. As Kafka's error answers, INVALID_REQUEST and REBOOTSTRAP_REQUIRED carry no API list.
 *
 * <p>v3+ also carry the features, as a Kafka 4.4 broker fills them: supported {@code metadata.version} 7-33 (3.3-IV3
 * to 4.4-IV2) and {@code transaction.version} 0-2; finalized {@code metadata.version} 33 and the cluster's
 * {@code transaction.version} (omitted at level 0, as Kafka omits every level-0 feature), with a finalized-features
 * epoch. The producer turns KIP-890's transaction protocol on when the finalized transaction.version is 2 or more.
 * Below v4, supported features whose minimum is 0 are left out, as Kafka does for clients that cannot read them
 * (KAFKA-17492).
 */
final class ApiVersionsHandler implements ApiHandler {

    private static final String METADATA_VERSION = "metadata.version";
    private static final String TRANSACTION_VERSION = "transaction.version";
    /** Kafka's MetadataVersion.MINIMUM_VERSION (3.3-IV3) and LATEST_PRODUCTION (4.4-IV2) feature levels. */
    private static final short MIN_METADATA_VERSION = 7;
    private static final short LATEST_METADATA_VERSION = 33;
    /**
     * Kafka answers the offset of its metadata image; Samsa's features are finalized once, at start, and never change,
     * so one epoch serves. A client updates its view only when the epoch grows past the one it saw.
     */
    private static final long FINALIZED_FEATURES_EPOCH = 1;

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.API_VERSIONS;
    }

    @Override
    public void handle(KafkaRequest request, BrokerContext broker) {
        ApiVersionsRequest body = (ApiVersionsRequest) request.body();
        ApiVersionsResponseData response = new ApiVersionsResponseData();
        if (!broker.handlers().supports(ApiKeys.API_VERSIONS, request.version())) {
            response.setErrorCode(Errors.UNSUPPORTED_VERSION.code()).setApiKeys(advertised(broker));
        } else if (!body.isValid()) {
            response.setErrorCode(Errors.INVALID_REQUEST.code());
        } else if (meantAnotherBroker(body, broker)) {
            response.setErrorCode(Errors.REBOOTSTRAP_REQUIRED.code());
        } else {
            response.setApiKeys(advertised(broker))
                    .setSupportedFeatures(supportedFeatures(request.version()))
                    .setFinalizedFeatures(finalizedFeatures(broker.cluster().metadata().transactionVersion()))
                    .setFinalizedFeaturesEpoch(FINALIZED_FEATURES_EPOCH);
        }
        request.respond(response);
    }

    /** Kafka's {@code clusterIdOrNodeIdIsInvalid}: a v5 request that names a cluster and it, or the node, is not this one. */
    private static boolean meantAnotherBroker(ApiVersionsRequest body, BrokerContext broker) {
        String clusterId = body.data().clusterId();
        return body.version() >= 5 && clusterId != null
                && (!clusterId.equals(broker.cluster().metadata().clusterId()) || body.data().nodeId() != broker.brokerId());
    }

    private static ApiVersionCollection advertised(BrokerContext broker) {
        ApiVersionCollection versions = new ApiVersionCollection();
        for (Handlers.Registration r : broker.handlers().all()) {
            versions.add(new ApiVersion().setApiKey(r.apiKey().id).setMinVersion(r.minVersion()).setMaxVersion(r.maxVersion()));
        }
        return versions;
    }

    private static SupportedFeatureKeyCollection supportedFeatures(short version) {
        SupportedFeatureKeyCollection supported = new SupportedFeatureKeyCollection();
        supported.add(new SupportedFeatureKey().setName(METADATA_VERSION).setMinVersion(MIN_METADATA_VERSION)
                .setMaxVersion(LATEST_METADATA_VERSION));
        if (version >= 4) {
            supported.add(new SupportedFeatureKey().setName(TRANSACTION_VERSION).setMinVersion((short) 0)
                    .setMaxVersion(ClusterMetadata.LATEST_TRANSACTION_VERSION));
        }
        return supported;
    }

    private static FinalizedFeatureKeyCollection finalizedFeatures(short transactionVersion) {
        FinalizedFeatureKeyCollection finalized = new FinalizedFeatureKeyCollection();
        finalized.add(new FinalizedFeatureKey().setName(METADATA_VERSION).setMinVersionLevel(LATEST_METADATA_VERSION)
                .setMaxVersionLevel(LATEST_METADATA_VERSION));
        if (transactionVersion > 0) {
            finalized.add(new FinalizedFeatureKey().setName(TRANSACTION_VERSION).setMinVersionLevel(transactionVersion)
                    .setMaxVersionLevel(transactionVersion));
        }
        return finalized;
    }
}
