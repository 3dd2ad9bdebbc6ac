package dev.samsa.txn.tv2;

import dev.samsa.txn.TxnClients;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.samsa.Api;
import dev.samsa.KafkaCluster;
import dev.samsa.RequestInterceptor;
import dev.samsa.event.TxnMarkerWritten;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.FeatureMetadata;
import org.apache.kafka.clients.admin.FinalizedVersionRange;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * The cluster's transaction.version, as real clients meet it: the producer speaks KIP-890's protocol exactly when
 * ApiVersions finalizes version 2, and commits, aborts and read_committed come out the same under every version.
 */
class TransactionVersionTest {

    @Test
    void aFreshClusterFinalizesTransactionVersion2AsKafka41Does() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().start();
             Admin admin = Admin.create(cluster.adminConfig())) {
            FeatureMetadata features = admin.describeFeatures().featureMetadata().get();

            assertThat(features.finalizedFeatures()).containsEntry("transaction.version", new FinalizedVersionRange((short) 2, (short) 2));
            assertThat(features.supportedFeatures().get("transaction.version").minVersion()).isZero();
            assertThat(features.supportedFeatures().get("transaction.version").maxVersion()).isEqualTo((short) 2);
            assertThat(features.finalizedFeaturesEpoch()).hasValueSatisfying(epoch -> assertThat(epoch).isPositive());
        }
    }

    @Test
    void levelZeroIsLeftOutOfTheFinalizedFeaturesAsKafkaLeavesItOut() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().transactionVersion(0).start();
             Admin admin = Admin.create(cluster.adminConfig())) {
            FeatureMetadata features = admin.describeFeatures().featureMetadata().get();

            assertThat(features.finalizedFeatures()).doesNotContainKey("transaction.version").containsKey("metadata.version");
        }
    }

    @Test
    void aLevelOutsideZeroToTwoIsRefusedByTheBuilder() {
        assertThatThrownBy(() -> KafkaCluster.builder().transactionVersion(3)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("transaction.version must be 0, 1 or 2");
        assertThatThrownBy(() -> KafkaCluster.builder().transactionVersion(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void underVersion2TheProducerAddsNoPartitionsAndEveryEndBumpsTheEpoch() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).topic("orders", 1, 3).start();
             KafkaProducer<String, String> producer = TxnClients.transactionalProducer(cluster, "tx-v2")) {
            Queue<RequestInterceptor.Request> requests = TxnClients.recordRequests(cluster, Api.ADD_PARTITIONS_TO_TXN, Api.END_TXN, Api.PRODUCE);
            producer.initTransactions();
            committedAbortedCommitted(producer);

            // The partition leader adds the partition for the client (AddPartitionsToTxn never crosses the wire).
            assertThat(TxnClients.versions(requests, Api.ADD_PARTITIONS_TO_TXN)).isEmpty();
            assertThat(TxnClients.versions(requests, Api.END_TXN)).containsExactly((short) 5, (short) 5, (short) 5);
            assertThat(TxnClients.versions(requests, Api.PRODUCE)).isNotEmpty().allMatch(v -> v >= 12);
            // The commit is answered once PrepareCommit is replicated; its markers follow.
            await().until(() -> cluster.events().events(TxnMarkerWritten.class).size() == 3);
            List<TxnMarkerWritten> markers = cluster.events().events(TxnMarkerWritten.class);
            assertThat(markers).extracting(TxnMarkerWritten::committed).containsExactly(true, false, true);
            // Each end's markers carry the epoch that end bumped to: 0 -> 1 -> 2 -> 3.
            assertThat(markers).extracting(TxnMarkerWritten::producerEpoch).containsExactly((short) 1, (short) 2, (short) 3);
            assertThat(TxnClients.readAll(cluster, "orders", "read_committed")).containsExactly("a1", "a2", "c1");
            assertThat(TxnClients.readAll(cluster, "orders", "read_uncommitted")).containsExactly("a1", "a2", "b1", "c1");
            assertThat(cluster.partition("orders", 0).lastStableOffset()).isEqualTo(cluster.partition("orders", 0).highWatermark());
        }
    }

    @ParameterizedTest(name = "transaction.version={0}")
    @ValueSource(ints = {0, 1})
    void belowVersion2TheProducerAddsItsPartitionsAndTheEpochStays(int level) throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).transactionVersion(level).topic("orders", 1, 3).start();
             KafkaProducer<String, String> producer = TxnClients.transactionalProducer(cluster, "tx-v" + level)) {
            Queue<RequestInterceptor.Request> requests = TxnClients.recordRequests(cluster, Api.ADD_PARTITIONS_TO_TXN, Api.END_TXN, Api.PRODUCE);
            producer.initTransactions();
            committedAbortedCommitted(producer);

            // At least one per transaction; one sent while the previous commit completes is refused and sent again.
            assertThat(TxnClients.versions(requests, Api.ADD_PARTITIONS_TO_TXN)).hasSizeGreaterThanOrEqualTo(3).allMatch(v -> v < 4);
            assertThat(TxnClients.versions(requests, Api.END_TXN)).containsExactly((short) 4, (short) 4, (short) 4);
            assertThat(TxnClients.versions(requests, Api.PRODUCE)).isNotEmpty().allMatch(v -> v < 12);
            await().until(() -> cluster.events().events(TxnMarkerWritten.class).size() == 3);
            List<TxnMarkerWritten> markers = cluster.events().events(TxnMarkerWritten.class);
            assertThat(markers).extracting(TxnMarkerWritten::committed).containsExactly(true, false, true);
            assertThat(markers).extracting(TxnMarkerWritten::producerEpoch).containsOnly((short) 0);
            assertThat(TxnClients.readAll(cluster, "orders", "read_committed")).containsExactly("a1", "a2", "c1");
            assertThat(TxnClients.readAll(cluster, "orders", "read_uncommitted")).containsExactly("a1", "a2", "b1", "c1");
        }
    }

    private static void committedAbortedCommitted(KafkaProducer<String, String> producer) throws Exception {
        producer.beginTransaction();
        producer.send(new ProducerRecord<>("orders", "a1"));
        producer.send(new ProducerRecord<>("orders", "a2"));
        producer.commitTransaction();
        producer.beginTransaction();
        producer.send(new ProducerRecord<>("orders", "b1")).get();
        producer.abortTransaction();
        producer.beginTransaction();
        producer.send(new ProducerRecord<>("orders", "c1"));
        producer.commitTransaction();
    }
}
