package dev.samsa.group;

import dev.samsa.KafkaCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/** Real clients for the group tests: a producer that writes known records, consumers with explicit settings. */
final class GroupClients {

    private GroupClients() {
    }

    /**
     * Writes {@code perPartition} records to each partition of {@code topic} with acks=all, values
     * "p&lt;partition&gt;-&lt;n&gt;" so a record names its own place; returns the values in the order sent.
     */
    static List<String> produce(KafkaCluster cluster, String topic, int partitions, int perPartition) {
        List<String> sent = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            sent.addAll(produce(cluster, topic, p, 0, perPartition));
        }
        return sent;
    }

    /** Writes records "p&lt;partition&gt;-&lt;from&gt;" .. to one partition, acks=all; returns their values. */
    static List<String> produce(KafkaCluster cluster, String topic, int partition, int from, int count) {
        Map<String, Object> config = cluster.producerConfig();
        config.put("acks", "all");
        List<String> sent = new ArrayList<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
            for (int p = partition; p == partition; p++) {
                for (int n = from; n < from + count; n++) {
                    String value = "p" + p + "-" + n;
                    producer.send(new ProducerRecord<>(topic, p, value, value)).get();
                    sent.add(value);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("produce to " + topic + " failed", e.getCause());
        }
        return sent;
    }

    /** A subscribed consumer; {@code overrides} are applied on top of the cluster's consumer config. */
    static KafkaConsumer<String, String> consumer(KafkaCluster cluster, String group, String topic, Map<String, Object> overrides) {
        Map<String, Object> config = cluster.consumerConfig(group);
        config.put("heartbeat.interval.ms", "100");
        config.put("enable.auto.commit", "false");
        config.putAll(overrides);
        KafkaConsumer<String, String> c = new KafkaConsumer<>(config);
        c.subscribe(List.of(topic));
        return c;
    }

    /** Values of the records of one poll, in order. */
    static List<String> values(Iterable<ConsumerRecord<String, String>> records) {
        List<String> values = new ArrayList<>();
        records.forEach(r -> values.add(r.value()));
        return values;
    }

    static void closeQuietly(KafkaConsumer<?, ?> consumer) {
        try {
            consumer.close(Duration.ofSeconds(5));
        } catch (RuntimeException e) {
            // Already closed, or its coordinator is gone: nothing left to release.
        }
    }
}
