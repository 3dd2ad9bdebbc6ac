package dev.samsa.replication;

import static org.awaitility.Awaitility.await;

import dev.samsa.KafkaCluster;
import dev.samsa.junit.SamsaAssertions;
import dev.samsa.time.ClusterClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Small helpers the data-loss scenarios share: a synchronous producer, a read-everything consumer, and the moves that
 * leave a partition's leader alone in its ISR.
 */
final class ScenarioSupport {

    private ScenarioSupport() {
    }

    /** A producer that sends one record per request, so every acknowledgement is about exactly one record. */
    static KafkaProducer<String, String> producer(KafkaCluster cluster, String acks, Map<String, Object> extra) {
        Map<String, Object> config = cluster.producerConfig();
        config.put("acks", acks);
        config.put("linger.ms", "0");
        config.put("enable.idempotence", acks.equals("all") ? "true" : "false");
        config.put("retries", acks.equals("all") ? Integer.toString(Integer.MAX_VALUE) : "0");
        config.put("max.in.flight.requests.per.connection", "1");
        config.put("delivery.timeout.ms", "30000");
        config.put("request.timeout.ms", "10000");
        config.put("metadata.max.age.ms", "500");
        config.put("retry.backoff.ms", "20");
        config.putAll(extra);
        return new KafkaProducer<>(config);
    }

    /** Sends values {@code prefix-from .. prefix-(to-1)} one at a time; returns those acknowledged. */
    static List<String> sendAcknowledged(KafkaProducer<String, String> producer, String topic, String prefix, int from, int to) {
        List<String> acknowledged = new ArrayList<>();
        for (int i = from; i < to; i++) {
            String value = prefix + "-" + i;
            try {
                RecordMetadata m = producer.send(new ProducerRecord<>(topic, 0, "k", value)).get();
                if (m.hasOffset()) {
                    acknowledged.add(value);
                }
            } catch (ExecutionException e) {
                // Not acknowledged: the scenario counts only what the producer was told is safe.
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        return acknowledged;
    }

    /** Every record of partition 0 up to the high watermark, read by a fresh consumer. */
    static List<String> readAll(KafkaCluster cluster, String topic) {
        long end = cluster.partition(topic, 0).highWatermark();
        List<String> values = new ArrayList<>();
        Map<String, Object> config = cluster.consumerConfig(null);
        config.put("metadata.max.age.ms", "500");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
            TopicPartition tp = new TopicPartition(topic, 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(1)).until(() -> {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
                    values.add(r.value());
                }
                return consumer.position(tp) >= end;
            });
        }
        return values;
    }

    static void awaitHighWatermark(KafkaCluster cluster, String topic, long offset) {
        await().atMost(Duration.ofSeconds(30)).until(() -> cluster.partition(topic, 0).highWatermark() >= offset);
    }

    /** The replicas of partition 0 other than its leader, in replica order. */
    static List<Integer> followers(KafkaCluster cluster, String topic) {
        int leader = cluster.partition(topic, 0).leader();
        return cluster.partition(topic, 0).replicas().stream().filter(r -> r != leader).toList();
    }

    /**
     * Pauses every follower of partition 0 and advances the manual clock past replica.lag.time.max.ms (Kafka's default,
     * 30 s), leaving the leader alone in the ISR; returns the leader.
     */
    static int shrinkIsrToLeader(KafkaCluster cluster, ClusterClock clock, String topic) {
        int leader = cluster.partition(topic, 0).leader();
        followers(cluster, topic).forEach(f -> cluster.faults().pauseReplication(topic, 0, f));
        // 30 s is Kafka's replica.lag.time.max.ms; one more millisecond and the followers are out.
        clock.advance(Duration.ofMillis(30_001));
        SamsaAssertions.assertThat(cluster).partition(topic, 0).hasIsr(leader);
        return leader;
    }
}
