package dev.samsa.txn.tv2;

import dev.samsa.Api;
import dev.samsa.KafkaCluster;
import dev.samsa.RequestInterceptor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;

/** Real clients, and a record of the transactional requests they send, for the transaction version tests. */
final class Tv2Clients {

    private Tv2Clients() {
    }

    static KafkaProducer<String, String> transactionalProducer(KafkaCluster cluster, String transactionalId) {
        Map<String, Object> config = cluster.producerConfig();
        config.put("transactional.id", transactionalId);
        config.put("max.block.ms", "20000");
        return new KafkaProducer<>(config);
    }

    /** Every request of {@code apis} the cluster receives from now on, in arrival order. */
    static Queue<RequestInterceptor.Request> recordRequests(KafkaCluster cluster, Api... apis) {
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
    static List<Short> versions(Queue<RequestInterceptor.Request> requests, Api api) {
        return requests.stream().filter(r -> r.api() == api).map(RequestInterceptor.Request::version).toList();
    }

    /** The values of partition 0 of {@code topic} up to its end offset at {@code isolation}, read without a group. */
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
