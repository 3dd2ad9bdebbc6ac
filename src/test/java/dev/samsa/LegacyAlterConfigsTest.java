package dev.samsa;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterConfigsResponseData.AlterConfigsResourceResponse;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AlterConfigsRequest;
import org.apache.kafka.common.requests.AlterConfigsResponse;
import org.junit.jupiter.api.Test;

/**
 * The legacy AlterConfigs (KafkaJS's {@code admin.alterConfigs}; kafka-clients 4 no longer sends it, so the request is
 * raw): the configs given replace all of a resource's dynamic configs, as Kafka does, read back by a real admin client.
 */
class LegacyAlterConfigsTest {

    private static final ConfigResource ORDERS = new ConfigResource(ConfigResource.Type.TOPIC, "orders");

    @Test
    void theGivenConfigsReplaceEveryDynamicConfigOfTheTopic() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().start();
             Admin admin = Admin.create(cluster.adminConfig());
             RawConnection connection = RawConnection.connect(cluster.broker(1))) {
            cluster.createTopic("orders", 1, 1, Map.of("retention.ms", "1000", "cleanup.policy", "compact"));

            assertThat(alter(connection, false, resource("2", "orders", "retention.ms", "5000"))).singleElement()
                    .satisfies(r -> assertThat(r.errorCode()).isEqualTo(Errors.NONE.code()));

            Config config = admin.describeConfigs(List.of(ORDERS)).all().get().get(ORDERS);
            assertThat(config.get("retention.ms").value()).isEqualTo("5000");
            assertThat(config.get("retention.ms").source()).isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
            assertThat(config.get("cleanup.policy").value()).as("not named: deleted").isEqualTo("delete");
            assertThat(config.get("cleanup.policy").source()).isEqualTo(ConfigEntry.ConfigSource.DEFAULT_CONFIG);

            assertThat(alter(connection, true, resource("2", "orders", "retention.ms", "9"))).singleElement()
                    .satisfies(r -> assertThat(r.errorCode()).isEqualTo(Errors.NONE.code()));
            assertThat(admin.describeConfigs(List.of(ORDERS)).all().get().get(ORDERS).get("retention.ms").value())
                    .as("validateOnly changes nothing").isEqualTo("5000");
        }
    }

    @Test
    void badResourcesGetKafkasErrorsEachOnItsOwn() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().topic("orders", 1, 1).start();
             Admin admin = Admin.create(cluster.adminConfig());
             RawConnection connection = RawConnection.connect(cluster.broker(1))) {
            assertThat(alter(connection, false,
                    resource("2", "missing", "retention.ms", "5000"),
                    resource("2", "orders", "retention.ms", "soon"),
                    resource("4", "1", "log.retention.ms", "60000")))
                    .extracting(r -> r.resourceName() + ":" + Errors.forCode(r.errorCode()))
                    .containsExactly("missing:UNKNOWN_TOPIC_OR_PARTITION", "orders:INVALID_CONFIG", "1:NONE");
            ConfigResource broker1 = new ConfigResource(ConfigResource.Type.BROKER, "1");
            assertThat(admin.describeConfigs(List.of(broker1)).all().get().get(broker1).get("log.retention.ms").value())
                    .isEqualTo("60000");

            assertThat(alter(connection, false, resource("2", "orders", "retention.ms", "1"), resource("2", "orders", "retention.ms", "2")))
                    .allSatisfy(r -> assertThat(r.errorCode()).isEqualTo(Errors.INVALID_REQUEST.code()));
        }
    }

    private static AlterConfigsRequestData.AlterConfigsResource resource(String type, String name, String config, String value) {
        AlterConfigsRequestData.AlterConfigsResource r = new AlterConfigsRequestData.AlterConfigsResource()
                .setResourceType(Byte.parseByte(type)).setResourceName(name);
        r.configs().add(new AlterConfigsRequestData.AlterableConfig().setName(config).setValue(value));
        return r;
    }

    private static List<AlterConfigsResourceResponse> alter(RawConnection connection, boolean validateOnly,
                                                            AlterConfigsRequestData.AlterConfigsResource... resources) throws Exception {
        AlterConfigsRequestData data = new AlterConfigsRequestData().setValidateOnly(validateOnly);
        for (AlterConfigsRequestData.AlterConfigsResource r : resources) {
            data.resources().add(r);
        }
        AlterConfigsResponse response = connection.send(new AlterConfigsRequest(data, (short) 2));
        return response.data().responses();
    }
}
