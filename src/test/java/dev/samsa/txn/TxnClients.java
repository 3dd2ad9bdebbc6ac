package dev.samsa.txn;

import static org.awaitility.Awaitility.await;
import dev.samsa.Api;
import dev.samsa.KafkaCluster;
import dev.samsa.RequestInterceptor;
import dev.samsa.event.TxnStateChanged;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.awaitility.Awaitility;

/**
 * The real clients every transaction test shares: a transactional producer, reads at either isolation level, the
 * wait for a transaction's markers, and a record of the requests the clients send.
 */
public final class TxnClients {

    private TxnClients() {
    }

    public static KafkaProducer<String, String> transactionalProducer(KafkaCluster cluster, String transactionalId) {
        return transactionalProducer(cluster, transactionalId, Map.of());
    }

    public static KafkaProducer<String, String> transactionalProducer(KafkaCluster cluster, String transactionalId,
                                                                      Map<String, Object> overrides) {
        Map<String, Object> config = cluster.producerConfig();
        config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "20000");
        config.putAll(overrides);
        return new KafkaProducer<>(config);
    }

    public static KafkaConsumer<String, String> consumer(KafkaCluster cluster, IsolationLevel isolation) {
        Map<String, Object> config = cluster.consumerConfig(null);
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation.toString());
        return new KafkaConsumer<>(config);
    }

    public static List<TopicPartition> partitions(String topic, int count) {
        return IntStream.range(0, count).mapToObj(p -> new TopicPartition(topic, p)).toList();
    }

    /**
     * Waits until the last transaction of {@code transactionalId} has its markers written: commitTransaction returns once
     * the decision is replicated, as against Kafka, and the markers follow.
     */
    public static void awaitCompleted(KafkaCluster cluster, String transactionalId) {
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> {
            List<String> states = cluster.events().events(TxnStateChanged.class).stream()
                    .filter(e -> e.transactionalId().equals(transactionalId)).map(TxnStateChanged::state).toList();
            return !states.isEmpty() && states.get(states.size() - 1).startsWith("Complete");
        });
    }

    /** The values of {@code topic}'s partition 0 from the beginning up to its end offset at {@code isolation}. */
    public static List<String> readAll(KafkaCluster cluster, String topic, String isolation) {
        return values(readAll(cluster, IsolationLevel.valueOf(isolation.toUpperCase(java.util.Locale.ROOT)),
                List.of(new TopicPartition(topic, 0))));
    }

    /**
     * Every record of the partitions from the beginning up to the end offsets Kafka answers at this isolation level
     * (the last stable offset at read_committed, the high watermark at read_uncommitted), in partition order.
     */
    public static List<ConsumerRecord<String, String>> readAll(KafkaCluster cluster, IsolationLevel isolation,
                                                               List<TopicPartition> partitions) {
        try (KafkaConsumer<String, String> consumer = consumer(cluster, isolation)) {
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            List<ConsumerRecord<String, String>> records = new ArrayList<>();
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(1))
                    .alias("reading " + partitions + " at " + isolation + " reaches " + end).until(() -> {
                        consumer.poll(Duration.ofMillis(100)).forEach(records::add);
                        return partitions.stream().allMatch(tp -> consumer.position(tp) >= end.get(tp));
                    });
            records.sort((a, b) -> a.partition() != b.partition() ? Integer.compare(a.partition(), b.partition())
                    : Long.compare(a.offset(), b.offset()));
            return records;
        }
    }

    public static List<String> values(List<ConsumerRecord<String, String>> records) {
        return records.stream().map(ConsumerRecord::value).toList();
    }

    /** Every request of {@code apis} the cluster receives from now on, in arrival order. */
    public static Queue<RequestInterceptor.Request> recordRequests(KafkaCluster cluster, Api... apis) {
        Queue<RequestInterceptor.Request> seen = new ConcurrentLinkedQueue<>();
        for (Api api : apis) {
            cluster.faults().intercept(api, request -> {
                seen.add(request);
                return RequestInterceptor.Verdict.pass();
            });
        }
        return seen;
    }

    /** The versions of the recorded requests of {@code api}. */
    public static List<Short> versions(Queue<RequestInterceptor.Request> requests, Api api) {
        return requests.stream().filter(r -> r.api() == api).map(RequestInterceptor.Request::version).toList();
    }
}
