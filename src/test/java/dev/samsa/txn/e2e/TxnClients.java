package dev.samsa.txn.e2e;

import dev.samsa.KafkaCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;

/** The clients the end-to-end transaction tests share: a transactional producer, and reads at either isolation level. */
final class TxnClients {

    private TxnClients() {
    }

    static KafkaProducer<String, String> transactionalProducer(KafkaCluster cluster, String transactionalId) {
        return transactionalProducer(cluster, transactionalId, Map.of());
    }

    static KafkaProducer<String, String> transactionalProducer(KafkaCluster cluster, String transactionalId,
                                                               Map<String, Object> overrides) {
        Map<String, Object> config = cluster.producerConfig();
        config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        config.putAll(overrides);
        return new KafkaProducer<>(config);
    }

    static KafkaConsumer<String, String> consumer(KafkaCluster cluster, IsolationLevel isolation) {
        Map<String, Object> config = cluster.consumerConfig(null);
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation.toString());
        return new KafkaConsumer<>(config);
    }

    static List<TopicPartition> partitions(String topic, int count) {
        return IntStream.range(0, count).mapToObj(p -> new TopicPartition(topic, p)).toList();
    }

    /**
     * Every record of the partitions from the beginning up to the end offsets Kafka answers at this isolation level
     * (the last stable offset at read_committed, the high watermark at read_uncommitted), in partition order.
     */
    static List<ConsumerRecord<String, String>> readAll(KafkaCluster cluster, IsolationLevel isolation,
                                                        List<TopicPartition> partitions) {
        try (KafkaConsumer<String, String> consumer = consumer(cluster, isolation)) {
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            List<ConsumerRecord<String, String>> records = new ArrayList<>();
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("Reading " + partitions + " at " + isolation + " did not reach " + end);
                }
                consumer.poll(Duration.ofMillis(100)).forEach(records::add);
            }
            records.sort((a, b) -> a.partition() != b.partition() ? Integer.compare(a.partition(), b.partition())
                    : Long.compare(a.offset(), b.offset()));
            return records;
        }
    }

    static List<String> values(List<ConsumerRecord<String, String>> records) {
        return records.stream().map(ConsumerRecord::value).toList();
    }
}
