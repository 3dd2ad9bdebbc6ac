package dev.samsa;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.utils.internals.AppInfoParser;
import org.junit.jupiter.api.Test;

/**
 * ApiVersions v5 (KIP-1242): a client names the cluster and the broker it means to reach, and a broker that is not
 * that one answers REBOOTSTRAP_REQUIRED, as a Kafka 4.4 broker does. A restarted broker is the same broker of the same
 * cluster, so a client that reconnects to it is accepted.
 */
class ApiVersionsClusterCheckTest {

    private static final String TOPIC = "checked";

    private static ApiVersionsResponseData apiVersions(Broker broker, String clusterId, int nodeId) throws IOException {
        ApiVersionsRequestData data = new ApiVersionsRequestData().setClientSoftwareName("samsa-test")
                .setClientSoftwareVersion("1.0").setClusterId(clusterId).setNodeId(nodeId);
        try (RawConnection c = RawConnection.connect(broker)) {
            ApiVersionsResponse response = c.send(new ApiVersionsRequest(data, (short) 5));
            return response.data();
        }
    }

    private static String clusterId(KafkaCluster cluster) throws Exception {
        try (Admin admin = Admin.create(cluster.adminConfig())) {
            return admin.describeCluster().clusterId().get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void theBrokerAClientMeansIsAcceptedAlsoAfterItRestarts() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(2).start()) {
            String clusterId = clusterId(cluster);
            assertThat(apiVersions(cluster.broker(2), clusterId, 2).errorCode()).isEqualTo(Errors.NONE.code());

            cluster.broker(2).crash();
            cluster.broker(2).restart();

            ApiVersionsResponseData afterRestart = apiVersions(cluster.broker(2), clusterId, 2);
            assertThat(afterRestart.errorCode()).isEqualTo(Errors.NONE.code());
            assertThat(afterRestart.apiKeys().find(ApiKeys.API_VERSIONS.id).maxVersion()).isEqualTo((short) 5);
            assertThat(apiVersions(cluster.broker(1), null, -1).errorCode()).as("no cluster named: nothing to check")
                    .isEqualTo(Errors.NONE.code());
        }
    }

    @Test
    void anotherClusterOrAnotherBrokerAnswersRebootstrapRequired() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(2).start()) {
            String clusterId = clusterId(cluster);

            ApiVersionsResponseData otherCluster = apiVersions(cluster.broker(1), "not-" + clusterId, 1);
            ApiVersionsResponseData otherBroker = apiVersions(cluster.broker(1), clusterId, 2);

            assertThat(otherCluster.errorCode()).isEqualTo(Errors.REBOOTSTRAP_REQUIRED.code());
            assertThat(otherCluster.apiKeys()).as("as Kafka's error answer").isEmpty();
            assertThat(otherBroker.errorCode()).isEqualTo(Errors.REBOOTSTRAP_REQUIRED.code());
        }
    }

    @Test
    void aClusterIdWithoutANodeIdIsAnInvalidRequest() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().start()) {
            String clusterId = clusterId(cluster);
            assertThat(apiVersions(cluster.broker(1), clusterId, -1).errorCode()).isEqualTo(Errors.INVALID_REQUEST.code());
            assertThat(apiVersions(cluster.broker(1), null, 1).errorCode()).isEqualTo(Errors.INVALID_REQUEST.code());
        }
    }

    /** A Kafka 4.4 producer sends the check (ApiVersions v5) when it reconnects to a restarted broker, and goes on. */
    @Test
    void aKafka44ProducerReconnectingToARestartedBrokerIsAccepted() throws Exception {
        assertThat(AppInfoParser.getVersion()).startsWith("4.4");
        try (KafkaCluster cluster = KafkaCluster.builder().topic(TOPIC, 1, 1).start()) {
            Map<String, Object> config = cluster.producerConfig();
            config.put("reconnect.backoff.max.ms", "100");
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
                producer.send(new ProducerRecord<>(TOPIC, "k", "before")).get(30, TimeUnit.SECONDS);
                Queue<Short> versions = new ConcurrentLinkedQueue<>();
                cluster.faults().intercept(Api.API_VERSIONS, request -> {
                    versions.add(request.version());
                    return RequestInterceptor.Verdict.pass();
                });

                cluster.broker(1).crash();
                cluster.broker(1).restart();
                producer.send(new ProducerRecord<>(TOPIC, "k", "after")).get(30, TimeUnit.SECONDS);

                // One handshake: refused, the producer would have bootstrapped again and shaken hands twice more.
                assertThat(versions).as("the producer named the cluster and broker it reconnected to").containsExactly((short) 5);
            }
            assertThat(cluster.partition(TOPIC, 0).highWatermark()).isEqualTo(2);
        }
    }

    /**
     * A cluster started on the ports of one that is gone is another cluster: a Kafka 4.4 client of the old one is sent
     * back to bootstrap (it asked for the old cluster id, see above), learns the new cluster and goes on with it.
     */
    @Test
    void aKafka44ClientOfAClusterThatIsGoneBootstrapsAgainIntoTheOneOnItsPort() throws Exception {
        KafkaCluster first = KafkaCluster.builder().topic(TOPIC, 1, 1).start();
        int port = first.broker(1).port();
        Map<String, Object> config = first.producerConfig();
        config.put("reconnect.backoff.max.ms", "100");
        String firstId = clusterId(first);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
            producer.send(new ProducerRecord<>(TOPIC, "k", "first")).get(30, TimeUnit.SECONDS);
            first.close();
            try (KafkaCluster second = KafkaCluster.builder().port(port).topic(TOPIC, 1, 1).start()) {
                assertThat(clusterId(second)).isNotEqualTo(firstId);
                Queue<Short> versions = new ConcurrentLinkedQueue<>();
                second.faults().intercept(Api.API_VERSIONS, request -> {
                    versions.add(request.version());
                    return RequestInterceptor.Verdict.pass();
                });

                producer.send(new ProducerRecord<>(TOPIC, "k", "second")).get(30, TimeUnit.SECONDS);

                // Refused on its first handshake, it shook hands again: with the bootstrap address, then the broker.
                assertThat(versions).contains((short) 5).hasSizeGreaterThanOrEqualTo(2);
                assertThat(second.partition(TOPIC, 0).highWatermark()).isEqualTo(1);
            }
        } finally {
            first.close();
        }
    }
}
