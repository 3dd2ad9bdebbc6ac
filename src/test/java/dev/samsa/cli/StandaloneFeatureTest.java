package dev.samsa.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.samsa.KafkaCluster;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.FinalizedVersionRange;
import org.junit.jupiter.api.Test;

/** The launcher's --feature transaction.version=N, parsed in process (StandaloneTest runs the real launcher). */
class StandaloneFeatureTest {

    @Test
    void theTransactionVersionFeatureIsFinalizedAsGiven() throws Exception {
        try (KafkaCluster cluster = Standalone.parse(new String[] {"--feature", "transaction.version=1"}).start();
             Admin admin = Admin.create(cluster.adminConfig())) {
            assertThat(admin.describeFeatures().featureMetadata().get().finalizedFeatures())
                    .containsEntry("transaction.version", new FinalizedVersionRange((short) 1, (short) 1));
        }
    }

    @Test
    void anotherFeatureOrALevelKafkaDoesNotKnowIsRefused() {
        assertThatThrownBy(() -> Standalone.parse(new String[] {"--feature", "group.version=1"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--feature expects transaction.version=N");
        assertThatThrownBy(() -> Standalone.parse(new String[] {"--feature", "transaction.version=3"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("transaction.version must be 0, 1 or 2");
    }
}
