package dev.samsa.txn;

import dev.samsa.KafkaCluster;
import dev.samsa.event.TxnStateChanged;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;
import org.awaitility.Awaitility;

/** Real clients for the transaction tests. */
final class TxnClients {

    private TxnClients() {
    }

    static KafkaProducer<String, String> transactionalProducer(KafkaCluster cluster, String transactionalId, Map<String, Object> overrides) {
        Map<String, Object> config = cluster.producerConfig();
        config.put("transactional.id", transactionalId);
        config.put("max.block.ms", "20000");
        config.putAll(overrides);
        return new KafkaProducer<>(config);
    }

    /**
     * Waits until the last transaction of {@code transactionalId} has its markers written: commitTransaction returns once
     * the decision is replicated, as against Kafka, and the markers follow.
     */
    static void awaitCompleted(KafkaCluster cluster, String transactionalId) {
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> {
            List<String> states = cluster.events().events(TxnStateChanged.class).stream()
                    .filter(e -> e.transactionalId().equals(transactionalId)).map(TxnStateChanged::state).toList();
            return !states.isEmpty() && states.get(states.size() - 1).startsWith("Complete");
        });
    }

    /**
     * The values of every record of {@code topic}'s partition 0 up to its end offset at {@code isolation}, read from
     * the beginning without a group.
     */
    static List<String> readAll(KafkaCluster cluster, String topic, String isolation) {
        Map<String, Object> config = cluster.consumerConfig(null);
        config.put("isolation.level", isolation);
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
            TopicPartition tp = new TopicPartition(topic, 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long end = consumer.endOffsets(List.of(tp)).get(tp);
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (consumer.position(tp) < end && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
                    values.add(r.value());
                }
            }
        }
        return values;
    }
}
