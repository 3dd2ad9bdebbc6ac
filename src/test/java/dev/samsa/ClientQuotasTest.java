package dev.samsa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterClientQuotasOptions;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.common.quota.ClientQuotaFilter;
import org.apache.kafka.common.quota.ClientQuotaFilterComponent;
import org.junit.jupiter.api.Test;

/** Client quotas through a real admin client: stored, filtered and checked as Kafka does (they are not enforced). */
class ClientQuotasTest {

    private static final ClientQuotaEntity ALICE = new ClientQuotaEntity(Map.of(ClientQuotaEntity.USER, "alice"));
    private static final ClientQuotaEntity ALICE_APP = new ClientQuotaEntity(Map.of(ClientQuotaEntity.USER, "alice",
            ClientQuotaEntity.CLIENT_ID, "app"));
    private static final ClientQuotaEntity DEFAULT_USER = new ClientQuotaEntity(nullName(ClientQuotaEntity.USER));

    @Test
    void quotasAreStoredRemovedAndDescribedByFilter() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().start(); Admin admin = Admin.create(cluster.adminConfig())) {
            admin.alterClientQuotas(List.of(
                    alteration(ALICE, "producer_byte_rate", 1024.0),
                    alteration(ALICE_APP, "consumer_byte_rate", 2048.0),
                    alteration(DEFAULT_USER, "request_percentage", 12.5))).all().get();

            assertThat(admin.describeClientQuotas(ClientQuotaFilter.all()).entities().get())
                    .containsOnlyKeys(ALICE, ALICE_APP, DEFAULT_USER)
                    .containsEntry(ALICE, Map.of("producer_byte_rate", 1024.0))
                    .containsEntry(DEFAULT_USER, Map.of("request_percentage", 12.5));
            assertThat(admin.describeClientQuotas(ClientQuotaFilter.contains(
                    List.of(ClientQuotaFilterComponent.ofEntity(ClientQuotaEntity.USER, "alice")))).entities().get())
                    .containsOnlyKeys(ALICE, ALICE_APP);
            assertThat(admin.describeClientQuotas(ClientQuotaFilter.containsOnly(
                    List.of(ClientQuotaFilterComponent.ofEntity(ClientQuotaEntity.USER, "alice")))).entities().get())
                    .containsOnlyKeys(ALICE);
            assertThat(admin.describeClientQuotas(ClientQuotaFilter.contains(
                    List.of(ClientQuotaFilterComponent.ofDefaultEntity(ClientQuotaEntity.USER)))).entities().get())
                    .containsOnlyKeys(DEFAULT_USER);
            assertThat(admin.describeClientQuotas(ClientQuotaFilter.contains(
                    List.of(ClientQuotaFilterComponent.ofEntityType(ClientQuotaEntity.CLIENT_ID)))).entities().get())
                    .containsOnlyKeys(ALICE_APP);

            admin.alterClientQuotas(List.of(alteration(ALICE, "producer_byte_rate", null)),
                    new AlterClientQuotasOptions().validateOnly(true)).all().get();
            assertThat(admin.describeClientQuotas(ClientQuotaFilter.all()).entities().get()).containsKey(ALICE);
            admin.alterClientQuotas(List.of(alteration(ALICE, "producer_byte_rate", null))).all().get();
            assertThat(admin.describeClientQuotas(ClientQuotaFilter.all()).entities().get()).doesNotContainKey(ALICE);
        }
    }

    @Test
    void anInvalidAlterationIsRefusedWithKafkasMessageAndChangesNothing() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().start(); Admin admin = Admin.create(cluster.adminConfig())) {
            assertRefused(admin, alteration(ALICE, "producer_byte_rate", 10.5), "producer_byte_rate cannot be a fractional value.");
            assertRefused(admin, alteration(ALICE, "producer_byte_rate", -1.0), "Quota producer_byte_rate must be greater than 0");
            assertRefused(admin, alteration(ALICE, "connection_creation_rate", 5.0), "Invalid configuration key connection_creation_rate");
            assertRefused(admin, alteration(new ClientQuotaEntity(Map.of(ClientQuotaEntity.IP, "127.0.0.1", ClientQuotaEntity.USER, "a")),
                    "connection_creation_rate", 5.0), "IP entity should");
            assertThat(admin.describeClientQuotas(ClientQuotaFilter.all()).entities().get()).isEmpty();

            admin.alterClientQuotas(List.of(alteration(new ClientQuotaEntity(Map.of(ClientQuotaEntity.IP, "127.0.0.1")),
                    "connection_creation_rate", 5.0))).all().get();
            assertThat(admin.describeClientQuotas(ClientQuotaFilter.all()).entities().get()).hasSize(1);
        }
    }

    private static void assertRefused(Admin admin, ClientQuotaAlteration alteration, String message) {
        assertThatThrownBy(() -> admin.alterClientQuotas(List.of(alteration)).all().get())
                .isInstanceOf(ExecutionException.class).cause().isInstanceOf(InvalidRequestException.class)
                .hasMessageContaining(message);
    }

    private static ClientQuotaAlteration alteration(ClientQuotaEntity entity, String key, Double value) {
        return new ClientQuotaAlteration(entity, List.of(new ClientQuotaAlteration.Op(key, value)));
    }

    private static Map<String, String> nullName(String type) {
        Map<String, String> m = new HashMap<>();
        m.put(type, null);
        return m;
    }
}
