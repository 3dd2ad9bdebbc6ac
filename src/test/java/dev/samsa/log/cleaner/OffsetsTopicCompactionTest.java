package dev.samsa.log.cleaner;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.samsa.KafkaCluster;
import dev.samsa.TransactionView;
import dev.samsa.TxnState;
import dev.samsa.event.Compacted;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;

/**
 * __consumer_offsets and __transaction_state are compacted like any compacted topic, and a coordinator loads the
 * compacted log.
 */
class OffsetsTopicCompactionTest {

    /** Commits of one group before compaction; {@code -Dsamsa.compaction.commits=N} for another count. */
    private static final int COMMITS = Integer.getInteger("samsa.compaction.commits", 100_000);

    @Test
    void manyTransactionsCompactToTheLatestStateWhichANewCoordinatorReadsBack() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(139).topic("orders", 1, 3).start()) {
            Map<String, Object> config = new HashMap<>(cluster.producerConfig());
            config.put("transactional.id", "writer");
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(config, new StringSerializer(),
                    new StringSerializer())) {
                producer.initTransactions();
                for (int i = 0; i < 50; i++) {
                    producer.beginTransaction();
                    producer.send(new ProducerRecord<>("orders", "k", "v" + i));
                    producer.commitTransaction();
                }
            }
            int statePartition = Utils.abs("writer".hashCode()) % 5;
            cluster.rollSegments("__transaction_state");
            long removed = cluster.compact("__transaction_state", statePartition);
            assertThat(removed).as("each transaction wrote several state records, on 3 replicas").isGreaterThan(3 * 100);

            TransactionView before = cluster.transaction("writer");
            cluster.broker(cluster.partition("__transaction_state", statePartition).leader()).crash();
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(config, new StringSerializer(),
                    new StringSerializer())) {
                producer.initTransactions(); // the new coordinator loaded the compacted log
                producer.beginTransaction();
                producer.send(new ProducerRecord<>("orders", "k", "after"));
                producer.commitTransaction();
            }
            TransactionView after = cluster.transaction("writer");
            assertThat(after.producerId()).isEqualTo(before.producerId());
            assertThat(after.producerEpoch()).isGreaterThan(before.producerEpoch());
            assertThat(after.state()).isEqualTo(TxnState.COMPLETE_COMMIT);
        }
    }

    @Test
    void manyCommitsCompactToTheLatestOffsetsWhichANewCoordinatorReadsBack() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(138).topic("orders", 2, 3).start();
             Admin admin = Admin.create(cluster.adminConfig())) {
            TopicPartition p0 = new TopicPartition("orders", 0);
            TopicPartition p1 = new TopicPartition("orders", 1);
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cluster.consumerConfig("billing"),
                    new StringDeserializer(), new StringDeserializer())) {
                consumer.assign(List.of(p0, p1));
                for (int i = 1; i <= COMMITS; i++) {
                    consumer.commitSync(Map.of(p0, new OffsetAndMetadata(i), p1, new OffsetAndMetadata(10L * i)));
                }
            }
            int offsetsPartition = Utils.abs("billing".hashCode()) % 5;
            long before = cluster.partition("__consumer_offsets", offsetsPartition).logEndOffset(
                    cluster.partition("__consumer_offsets", offsetsPartition).leader());
            assertThat(before).isGreaterThanOrEqualTo(2L * COMMITS);

            cluster.rollSegments("__consumer_offsets");
            cluster.compact("__consumer_offsets");

            List<Compacted> compacted = cluster.events().events(Compacted.class).stream()
                    .filter(c -> c.topic().equals("__consumer_offsets") && c.partition() == offsetsPartition).toList();
            assertThat(compacted).hasSize(3).allSatisfy(c -> assertThat(c.recordsRemoved()).isGreaterThanOrEqualTo(2L * COMMITS - 10));
            int leader = cluster.partition("__consumer_offsets", offsetsPartition).leader();
            long batchesLeft = cluster.partition("__consumer_offsets", offsetsPartition).batches(leader).stream()
                    .mapToLong(b -> b.lastOffset() - b.baseOffset() + 1).count();
            assertThat(batchesLeft).as("batches left: one per committed partition, the group's metadata, the last")
                    .isLessThan(10);

            // The coordinator moves: the new one replays the compacted log.
            cluster.broker(leader).crash();
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets("billing")
                    .partitionsToOffsetAndMetadata().get();
            assertThat(committed).containsEntry(p0, new OffsetAndMetadata(COMMITS)).containsEntry(p1,
                    new OffsetAndMetadata(10L * COMMITS));
            cluster.broker(leader).restart();
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20)).until(
                    () -> cluster.partition("__consumer_offsets", offsetsPartition).isr().size() == 3);
        }
    }
}
