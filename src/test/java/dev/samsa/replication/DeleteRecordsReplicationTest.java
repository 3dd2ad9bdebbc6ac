package dev.samsa.replication;

import static dev.samsa.junit.SamsaAssertions.assertThat;
import static dev.samsa.junit.SamsaConditions.awaitCluster;
import static dev.samsa.junit.SamsaConditions.isrSize;
import static dev.samsa.replication.ScenarioSupport.followers;
import static dev.samsa.replication.ScenarioSupport.shrinkIsrToLeader;
import static org.assertj.core.api.Assertions.assertThat;

import dev.samsa.KafkaCluster;
import dev.samsa.junit.EmbeddedKafkaCluster;
import dev.samsa.junit.EmbeddedKafkaCluster.ClockType;
import dev.samsa.junit.Topic;
import dev.samsa.time.ClusterClock;
import java.util.Map;
import java.util.concurrent.Future;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * A follower that falls behind a leader whose log start offset was raised by DeleteRecords into the middle of a batch
 * (Kafka Streams purges its repartition topics this way after every commit). The follower starts over at the leader's
 * log start offset, fetches the batch that contains it, which begins earlier, and must take it as Kafka's
 * Partition.appendRecordsToFollowerOrFutureReplica does: restart its empty log at the batch's base offset, append, then
 * raise its log start offset to the leader's.
 */
@EmbeddedKafkaCluster(brokers = 2, seed = 3, clock = ClockType.MANUAL, topics = @Topic(name = "purged", replicationFactor = 2))
class DeleteRecordsReplicationTest {

    @Test
    void aFollowerCatchesUpFromALogStartOffsetInsideABatch(KafkaCluster cluster, ClusterClock clock) throws Exception {
        int leader = shrinkIsrToLeader(cluster, clock, "purged");
        int follower = followers(cluster, "purged").get(0);

        Map<String, Object> config = cluster.producerConfig();
        config.put("acks", "1");
        config.put("linger.ms", "60000");
        try (var producer = new KafkaProducer<String, String>(config)) {
            Future<RecordMetadata> last = null;
            for (int i = 0; i < 10; i++) {
                last = producer.send(new ProducerRecord<>("purged", 0, "k", "v" + i));
            }
            producer.flush(); // the ten records leave as one batch, offsets 0..9
            assertThat(last.get().offset()).isEqualTo(9);
        }
        try (Admin admin = Admin.create(cluster.adminConfig())) {
            admin.deleteRecords(Map.of(new TopicPartition("purged", 0), RecordsToDelete.beforeOffset(5))).all().get();
        }
        assertThat(cluster.partition("purged", 0).logStartOffset(leader)).isEqualTo(5);
        assertThat(cluster.partition("purged", 0).logEndOffset(follower)).isZero();

        cluster.faults().resumeReplication("purged", 0, follower);
        awaitCluster().untilAsserted(isrSize(cluster, "purged", 0, 2));
        assertThat(cluster.partition("purged", 0).logEndOffset(follower)).isEqualTo(10);
        assertThat(cluster.partition("purged", 0).logStartOffset(follower)).isEqualTo(5);
        assertThat(cluster).topic("purged").containsExactlyValues("v5", "v6", "v7", "v8", "v9");

        // The follower holds the same records: once it leads, they are still there.
        cluster.broker(leader).crash();
        assertThat(cluster.partition("purged", 0).leader()).isEqualTo(follower);
        assertThat(cluster).topic("purged").containsExactlyValues("v5", "v6", "v7", "v8", "v9");
    }
}
