package dev.samsa.junit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.samsa.KafkaCluster;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.FinalizedVersionRange;
import org.junit.jupiter.api.Test;

/** The annotation's transactionVersion is the level the cluster finalizes and its clients read from ApiVersions. */
@EmbeddedKafkaCluster(transactionVersion = 1)
class TransactionVersionAnnotationTest {

    @Test
    void theClusterFinalizesTheAnnotationsTransactionVersion(KafkaCluster cluster) throws Exception {
        try (Admin admin = Admin.create(cluster.adminConfig())) {
            assertThat(admin.describeFeatures().featureMetadata().get().finalizedFeatures())
                    .containsEntry("transaction.version", new FinalizedVersionRange((short) 1, (short) 1));
        }
    }
}
