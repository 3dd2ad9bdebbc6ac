package dev.samsa.txn.e2e;

import static dev.samsa.txn.TxnClients.partitions;
import static dev.samsa.txn.TxnClients.readAll;
import static dev.samsa.txn.TxnClients.transactionalProducer;
import static dev.samsa.txn.TxnClients.values;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.samsa.txn.TxnClients;
import dev.samsa.KafkaCluster;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * Committed and aborted transactions seen through real consumers on three brokers: read_committed sees exactly the
 * committed records in order, read_uncommitted sees everything written, and the end offsets each isolation level
 * answers are Kafka's: the last stable offset at read_committed, the high watermark at read_uncommitted.
 */
class CommitAndAbortTest {

    private static final String TOPIC = "payments";

    private static KafkaCluster cluster() {
        return KafkaCluster.builder().brokers(3).topic(TOPIC, 3, 3).start();
    }

    /** Sends values prefix-0 .. prefix-(count-1), round-robin over the three partitions, and waits for each ack. */
    private static List<String> send(KafkaProducer<String, String> producer, String prefix, int count) throws Exception {
        List<String> sent = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String value = prefix + "-" + i;
            producer.send(new ProducerRecord<>(TOPIC, i % 3, "k" + i, value)).get();
            sent.add(value);
        }
        return sent;
    }

    @Test
    void readCommittedSeesExactlyTheCommittedRecordsInOrderAndReadUncommittedSeesAll() throws Exception {
        try (KafkaCluster cluster = cluster();
                KafkaProducer<String, String> producer = transactionalProducer(cluster, "payments-tx")) {
            producer.initTransactions();
            List<String> committed = new ArrayList<>();
            List<String> all = new ArrayList<>();
            for (String name : List.of("first", "aborted", "second", "aborted-again", "third")) {
                producer.beginTransaction();
                List<String> sent = send(producer, name, 9);
                all.addAll(sent);
                if (name.startsWith("aborted")) {
                    producer.abortTransaction();
                } else {
                    producer.commitTransaction();
                    committed.addAll(sent);
                }
            }

            // Five transactions of three records per partition, each closed by one marker: 5 * (3 + 1) offsets. Kafka
            // answers EndTxn before the markers are written, so the last marker lands a little after the commit.
            await().atMost(10, TimeUnit.SECONDS).untilAsserted(() -> {
                for (int p = 0; p < 3; p++) {
                    var partition = cluster.partition(TOPIC, p);
                    assertThat(partition.highWatermark()).as("high watermark of %s", partition).isEqualTo(20);
                    assertThat(partition.lastStableOffset()).as("last stable offset of %s", partition).isEqualTo(20);
                }
            });
            List<TopicPartition> partitions = partitions(TOPIC, 3);
            List<ConsumerRecord<String, String>> readCommitted = readAll(cluster, IsolationLevel.READ_COMMITTED, partitions);
            // Each transaction sent three values to each partition, so per partition the committed values come in the
            // order first, second, third.
            assertThat(values(readCommitted)).containsExactlyElementsOf(perPartition(committed));
            assertThat(values(readAll(cluster, IsolationLevel.READ_UNCOMMITTED, partitions)))
                    .containsExactlyElementsOf(perPartition(all));
        }
    }

    /** Values sent round-robin over the three partitions, regrouped by partition, each partition in send order. */
    private static List<String> perPartition(List<String> values) {
        List<List<String>> byPartition = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        IntStream.range(0, values.size()).forEach(i -> byPartition.get(i % 3).add(values.get(i)));
        return byPartition.stream().flatMap(List::stream).toList();
    }

    @Test
    void endOffsetsAreTheLastStableOffsetAtReadCommittedAndTheHighWatermarkAtReadUncommitted() throws Exception {
        TopicPartition p0 = new TopicPartition(TOPIC, 0);
        try (KafkaCluster cluster = cluster();
                KafkaProducer<String, String> producer = transactionalProducer(cluster, "end-offsets-tx");
                KafkaConsumer<String, String> committedReader = TxnClients.consumer(cluster, IsolationLevel.READ_COMMITTED);
                KafkaConsumer<String, String> uncommittedReader =
                        TxnClients.consumer(cluster, IsolationLevel.READ_UNCOMMITTED)) {
            producer.initTransactions();
            producer.beginTransaction();
            for (int i = 0; i < 4; i++) {
                producer.send(new ProducerRecord<>(TOPIC, 0, "k", "committed-" + i)).get();
            }
            producer.commitTransaction();
            // Offsets 0-3 and the commit marker at 4, written after EndTxn is answered.
            await().atMost(10, TimeUnit.SECONDS).until(() -> endOffset(committedReader, p0) == 5);
            assertThat(endOffset(uncommittedReader, p0)).isEqualTo(5);

            producer.beginTransaction();
            for (int i = 0; i < 3; i++) {
                producer.send(new ProducerRecord<>(TOPIC, 0, "k", "open-" + i)).get();
            }
            // Offsets 5-7 belong to an open transaction: the high watermark covers them, the last stable offset stops
            // at its first offset.
            assertThat(cluster.partition(TOPIC, 0).highWatermark()).isEqualTo(8);
            assertThat(cluster.partition(TOPIC, 0).lastStableOffset()).isEqualTo(5);
            assertThat(endOffset(committedReader, p0)).as("read_committed end offset").isEqualTo(5);
            assertThat(endOffset(uncommittedReader, p0)).as("read_uncommitted end offset").isEqualTo(8);
            assertThat(values(readAll(cluster, IsolationLevel.READ_COMMITTED, List.of(p0))))
                    .containsExactly("committed-0", "committed-1", "committed-2", "committed-3");

            producer.commitTransaction();
            // The marker at 8 closes the transaction: both isolation levels end after it.
            await().atMost(10, TimeUnit.SECONDS).until(() -> endOffset(committedReader, p0) == 9);
            assertThat(endOffset(uncommittedReader, p0)).isEqualTo(9);
            assertThat(cluster.partition(TOPIC, 0).lastStableOffset()).isEqualTo(9);
        }
    }

    @Test
    void transactionsWhoseBatchesArePipelinedCommitEveryRecordInOrder() throws Exception {
        // Small batches and the default five requests in flight: a transaction's first batches reach the leader
        // before the first is appended, as a busy producer's do (transaction version 2 verifies the first one with
        // the coordinator, and the ones behind it must wait their turn).
        Map<String, Object> pipelined = Map.of(ProducerConfig.BATCH_SIZE_CONFIG, 2048, ProducerConfig.LINGER_MS_CONFIG, 0);
        List<String> sent = new ArrayList<>();
        try (KafkaCluster cluster = cluster();
                KafkaProducer<String, String> producer = transactionalProducer(cluster, "pipelined-tx", pipelined)) {
            producer.initTransactions();
            for (int t = 0; t < 10; t++) {
                producer.beginTransaction();
                for (int i = 0; i < 300; i++) {
                    String value = "t" + t + "-" + i + "-" + "x".repeat(100);
                    producer.send(new ProducerRecord<>(TOPIC, 0, null, value));
                    sent.add(value);
                }
                producer.commitTransaction();
            }
            TopicPartition p0 = new TopicPartition(TOPIC, 0);
            // 3,000 records and ten markers.
            await().atMost(10, TimeUnit.SECONDS).until(() -> cluster.partition(TOPIC, 0).lastStableOffset() == 3010);
            assertThat(values(readAll(cluster, IsolationLevel.READ_COMMITTED, List.of(p0)))).isEqualTo(sent);
        }
    }

    private static long endOffset(KafkaConsumer<String, String> consumer, TopicPartition partition) {
        Map<TopicPartition, Long> end = consumer.endOffsets(List.of(partition));
        return end.get(partition);
    }
}
