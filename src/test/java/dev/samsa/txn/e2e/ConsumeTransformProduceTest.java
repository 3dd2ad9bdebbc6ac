package dev.samsa.txn.e2e;

import static dev.samsa.txn.TxnClients.partitions;
import static dev.samsa.txn.TxnClients.readAll;
import static dev.samsa.txn.TxnClients.transactionalProducer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.samsa.txn.TxnClients;
import dev.samsa.KafkaCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The consume-transform-produce loop of exactly-once processing: read input at read_committed, write the result and
 * the consumed offsets in one transaction ({@code sendOffsetsToTransaction}), commit. The processing instance is
 * killed at 20 seeded points: its producer closed at once without committing (some sends in flight, sometimes with the
 * offsets already added to the transaction), its consumer abandoned. The next instance, with the same transactional.id,
 * fences the dead one, which aborts its open transaction and drops its pending offsets, and resumes from the last
 * committed offsets. In the end the output holds every input exactly once at read_committed.
 */
class ConsumeTransformProduceTest {

    private static final String INPUT = "orders";
    private static final String OUTPUT = "orders-enriched";
    private static final String GROUP = "enricher";
    private static final int RECORDS = 10_000;
    private static final int KILLS = 20;
    private static final long SEED = 20_261_201L;

    private final List<KafkaConsumer<String, String>> abandoned = new ArrayList<>();

    @AfterEach
    void closeAbandonedConsumers() {
        abandoned.forEach(consumer -> consumer.close(Duration.ZERO));
    }

    @Test
    void everyInputIsInTheOutputExactlyOnceAfterTwentyKills() throws Exception {
        Random random = new Random(SEED);
        TreeSet<Integer> killPoints = new TreeSet<>();
        while (killPoints.size() < KILLS) {
            killPoints.add(1 + random.nextInt(RECORDS - 1));
        }
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).topic(INPUT, 3, 3).topic(OUTPUT, 3, 3).start()) {
            Map<TopicPartition, Long> inputEnd = produceInput(cluster);
            int sends = 0;
            int instances = 0;
            boolean done = false;
            while (!done) {
                instances++;
                Instance instance = new Instance(cluster, inputEnd);
                Integer killAt = killPoints.ceiling(sends + 1);
                int limit = killAt == null ? Integer.MAX_VALUE : killAt - sends;
                Outcome outcome = instance.process(limit, random.nextBoolean());
                sends += outcome.sends;
                if (outcome.killed) {
                    killPoints.remove(killAt);
                    abandoned.add(instance.consumer);
                } else {
                    instance.close();
                    done = true;
                }
            }
            assertThat(instances).isEqualTo(KILLS + 1);

            List<TopicPartition> outputs = partitions(OUTPUT, 3);
            // The last commit's markers are written after EndTxn is answered.
            await().atMost(10, TimeUnit.SECONDS).until(() -> outputs.stream().allMatch(tp -> {
                var partition = cluster.partition(OUTPUT, tp.partition());
                return partition.lastStableOffset() == partition.highWatermark();
            }));
            Map<String, Long> copies = readAll(cluster, IsolationLevel.READ_COMMITTED, outputs).stream()
                    .collect(Collectors.groupingBy(ConsumerRecord::value, Collectors.counting()));
            List<Integer> missing = new ArrayList<>();
            List<Integer> duplicated = new ArrayList<>();
            for (int i = 0; i < RECORDS; i++) {
                long n = copies.getOrDefault("enriched-" + i, 0L);
                if (n == 0) {
                    missing.add(i);
                } else if (n > 1) {
                    duplicated.add(i);
                }
            }
            assertThat(missing).as("inputs missing from the output at read_committed (%d sends by %d instances)",
                    sends, instances).isEmpty();
            assertThat(duplicated).as("inputs more than once in the output at read_committed").isEmpty();
            assertThat(copies).hasSize(RECORDS);
            // What the killed instances sent before they died may be in the log, aborted: read_uncommitted sees it.
            // Possibly none: a send still in the producer when it was closed never left it, and under transaction
            // version 2 (the default) a send that reaches its leader after the successor's InitProducerId is refused.
            assertThat(readAll(cluster, IsolationLevel.READ_UNCOMMITTED, outputs)).hasSizeBetween(RECORDS, sends);
        }
    }

    /** @return the end offset of each input partition once every input record is written */
    private static Map<TopicPartition, Long> produceInput(KafkaCluster cluster) throws Exception {
        Map<String, Object> config = cluster.producerConfig();
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config);
                KafkaConsumer<String, String> consumer = TxnClients.consumer(cluster, IsolationLevel.READ_COMMITTED)) {
            for (int i = 0; i < RECORDS; i++) {
                producer.send(new ProducerRecord<>(INPUT, "key-" + i, Integer.toString(i)));
            }
            producer.flush();
            return consumer.endOffsets(partitions(INPUT, 3));
        }
    }

    private record Outcome(int sends, boolean killed) {
    }

    /** One processing instance: a read_committed consumer of all input partitions and a transactional producer. */
    private static final class Instance {
        private final KafkaConsumer<String, String> consumer;
        private final KafkaProducer<String, String> producer;
        private final List<TopicPartition> inputs = partitions(INPUT, 3);
        private final Map<TopicPartition, Long> inputEnd;

        Instance(KafkaCluster cluster, Map<TopicPartition, Long> inputEnd) {
            this.inputEnd = inputEnd;
            Map<String, Object> config = cluster.consumerConfig(GROUP);
            config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
            config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
            config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "250");
            consumer = new KafkaConsumer<>(config);
            // Assigned, not subscribed: a dead instance holds no group membership the next one must wait out.
            consumer.assign(inputs);
            producer = transactionalProducer(cluster, "enricher-1");
            // Fences the previous instance and aborts its open transaction before this one reads committed offsets.
            producer.initTransactions();
        }

        /**
         * Processes until every input is committed, or is killed after {@code limit} sends; a kill lands in the
         * middle of a transaction, after the consumed offsets were added to it when {@code offsetsBeforeKill}.
         */
        Outcome process(int limit, boolean offsetsBeforeKill) {
            int sends = 0;
            while (!atEndOfInput()) {
                ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(100));
                if (records.isEmpty()) {
                    continue;
                }
                producer.beginTransaction();
                Map<TopicPartition, OffsetAndMetadata> consumed = new HashMap<>();
                for (ConsumerRecord<String, String> record : records) {
                    producer.send(new ProducerRecord<>(OUTPUT, record.key(), "enriched-" + record.value()));
                    consumed.put(new TopicPartition(record.topic(), record.partition()),
                            new OffsetAndMetadata(record.offset() + 1));
                    sends++;
                    if (sends == limit) {
                        if (offsetsBeforeKill) {
                            producer.sendOffsetsToTransaction(consumed, consumer.groupMetadata());
                        }
                        producer.close(Duration.ZERO);
                        return new Outcome(sends, true);
                    }
                }
                producer.sendOffsetsToTransaction(consumed, consumer.groupMetadata());
                producer.commitTransaction();
            }
            return new Outcome(sends, false);
        }

        private boolean atEndOfInput() {
            return inputs.stream().allMatch(tp -> consumer.position(tp) >= inputEnd.get(tp));
        }

        void close() {
            producer.close();
            consumer.close();
        }
    }
}
