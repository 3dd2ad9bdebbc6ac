package dev.samsa.handler;

import static dev.samsa.handler.Handlers.serves;
import static org.assertj.core.api.Assertions.assertThat;

import dev.samsa.cluster.ClusterFixture;
import dev.samsa.wire.KafkaRequest;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ApiVersions answers from the version table, not from kafka-clients: here the table serves ApiVersions only up to
 * v3 although kafka-clients encodes v4, as a table does after a kafka-clients upgrade that the handlers have not
 * followed.
 */
class ApiVersionsHandlerTest {

    private final Handlers handlers = new Handlers(List.of(serves(new ApiVersionsHandler(), 0, 3), serves(new ProduceHandler(), 3, 13)));

    @TempDir
    Path dir;
    private ClusterFixture cluster;

    @BeforeEach
    void start() {
        cluster = new ClusterFixture(dir, 1, Map.of());
    }

    @AfterEach
    void stop() {
        cluster.close();
    }

    @Test
    void theAnswerListsTheTableAndNothingElse() {
        ApiVersionsResponseData response = answer((short) 3);
        assertThat(response.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(response.apiKeys()).extracting(v -> ApiKeys.forId(v.apiKey()) + " v" + v.minVersion() + "-" + v.maxVersion())
                .containsExactly("PRODUCE v3-13", "API_VERSIONS v0-3");
    }

    @Test
    void v3AnswersTheFinalizedTransactionVersionButNoSupportedFeatureWhoseMinimumIsZero() {
        cluster.run(() -> cluster.state.metadata().finalizeTransactionVersion((short) 1));
        ApiVersionsResponseData response = answer((short) 3);
        assertThat(response.finalizedFeaturesEpoch()).isPositive();
        assertThat(response.finalizedFeatures().find("transaction.version").maxVersionLevel()).isEqualTo((short) 1);
        assertThat(response.finalizedFeatures().find("metadata.version").maxVersionLevel()).isEqualTo((short) 33);
        // As Kafka for clients below v4 (KAFKA-17492): transaction.version's supported range starts at 0.
        assertThat(response.supportedFeatures().find("transaction.version")).isNull();
        assertThat(response.supportedFeatures().find("metadata.version").minVersion()).isEqualTo((short) 7);
    }

    @Test
    void aVersionKafkaClientsKnowsButTheTableDoesNotServeIsUnsupported() {
        assertThat(ApiKeys.API_VERSIONS.latestVersion()).as("kafka-clients encodes v4").isGreaterThanOrEqualTo((short) 4);
        ApiVersionsResponseData response = answer((short) 4);
        assertThat(response.errorCode()).isEqualTo(Errors.UNSUPPORTED_VERSION.code());
        assertThat(response.apiKeys()).hasSize(2);
    }

    private ApiVersionsResponseData answer(short version) {
        AtomicReference<ApiMessage> answered = new AtomicReference<>();
        ApiVersionsRequestData data = new ApiVersionsRequestData().setClientSoftwareName("samsa-test").setClientSoftwareVersion("1.0");
        KafkaRequest request = new KafkaRequest(new RequestHeader(ApiKeys.API_VERSIONS, version, "test", 1),
                new ApiVersionsRequest(data, version), "127.0.0.1:1", new KafkaRequest.Responder() {
                    @Override
                    public void complete(KafkaRequest r, ApiMessage response) {
                        answered.set(response);
                    }

                    @Override
                    public void completeWithoutResponse(KafkaRequest r) {
                        throw new AssertionError("ApiVersions is always answered");
                    }

                    @Override
                    public void closeConnection(KafkaRequest r, String reason) {
                        throw new AssertionError("closed: " + reason);
                    }
                });
        cluster.run(() -> new ApiVersionsHandler().handle(request, new BrokerContext(1, cluster.state, null, handlers, null, null)));
        return (ApiVersionsResponseData) answered.get();
    }
}
