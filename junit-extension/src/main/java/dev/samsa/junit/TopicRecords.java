package dev.samsa.junit;

import dev.samsa.KafkaCluster;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.assertj.core.presentation.StandardRepresentation;

/**
 * Everything a topic held when it was read: records in partition, then offset order, and each partition's offsets.
 * Read as a client would, with a real {@link KafkaConsumer} (no group) that assigns every partition, seeks to the
 * beginning and polls until it reaches the end offsets it saw at the start.
 *
 * @param partitions beginning and end offset per partition, empty when the topic does not exist
 * @param topicsInCluster all topic names, filled only when the topic does not exist, for the failure message
 */
record TopicRecords<V>(String topic, Map<Integer, Offsets> partitions, List<Entry<V>> records,
                       Set<String> topicsInCluster) {

    record Offsets(long beginning, long end) {
    }

    /** One record; the key is shown as UTF-8 text. */
    record Entry<V>(int partition, long offset, String key, V value) {
    }

    static Deserializer<String> stringDeserializer() {
        return new StringDeserializer();
    }

    boolean exists() {
        return !partitions.isEmpty();
    }

    List<V> values() {
        return records.stream().map(Entry::value).toList();
    }

    /**
     * @throws AssertionError when the records up to the end offsets did not arrive within {@code timeout}, showing
     *     those that did
     */
    static <V> TopicRecords<V> read(KafkaCluster cluster, String topic, Deserializer<V> valueDeserializer, Duration timeout) {
        Map<String, Object> config = cluster.consumerConfig(null);
        config.put("client.id", "samsa-assertions-" + topic);
        config.put("allow.auto.create.topics", "false");
        config.put("enable.auto.commit", "false");
        try (KafkaConsumer<byte[], V> consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(),
                new KeepOpen<>(valueDeserializer))) {
            List<PartitionInfo> infos = consumer.partitionsFor(topic, timeout);
            if (infos == null || infos.isEmpty()) {
                return new TopicRecords<>(topic, Map.of(), List.of(), new TreeSet<>(consumer.listTopics(timeout).keySet()));
            }
            List<TopicPartition> assigned = infos.stream().map(p -> new TopicPartition(topic, p.partition()))
                    .sorted(Comparator.comparingInt(TopicPartition::partition)).toList();
            consumer.assign(assigned);
            consumer.seekToBeginning(assigned);
            Map<TopicPartition, Long> beginning = consumer.beginningOffsets(assigned, timeout);
            Map<TopicPartition, Long> end = consumer.endOffsets(assigned, timeout);
            Map<Integer, Offsets> offsets = new LinkedHashMap<>();
            assigned.forEach(tp -> offsets.put(tp.partition(), new Offsets(beginning.get(tp), end.get(tp))));

            List<Entry<V>> read = new ArrayList<>();
            // The test thread waits in wall time: a manual cluster clock must not make it wait forever.
            long deadline = System.nanoTime() + timeout.toNanos();
            while (!reachedEnd(consumer, end)) {
                if (System.nanoTime() - deadline > 0) {
                    TopicRecords<V> sofar = new TopicRecords<>(topic, offsets, sorted(read), Set.of());
                    throw new AssertionError("Could not read topic \"" + topic + "\" to its end offsets within " + timeout
                            + "; read so far:\n" + sofar.describe());
                }
                for (ConsumerRecord<byte[], V> r : consumer.poll(Duration.ofMillis(100))) {
                    String key = r.key() == null ? null : new String(r.key(), StandardCharsets.UTF_8);
                    read.add(new Entry<>(r.partition(), r.offset(), key, r.value()));
                }
            }
            return new TopicRecords<>(topic, offsets, sorted(read), Set.of());
        }
    }

    private static boolean reachedEnd(KafkaConsumer<?, ?> consumer, Map<TopicPartition, Long> end) {
        return end.entrySet().stream().allMatch(e -> consumer.position(e.getKey()) >= e.getValue());
    }

    private static <V> List<Entry<V>> sorted(List<Entry<V>> records) {
        return records.stream()
                .sorted(Comparator.<Entry<V>>comparingInt(Entry::partition).thenComparingLong(Entry::offset))
                .toList();
    }

    /** The whole content, for failure messages: each partition's offsets, then every record. */
    String describe() {
        if (!exists()) {
            return "topic \"" + topic + "\" does not exist; the cluster has topics " + topicsInCluster;
        }
        StringBuilder out = new StringBuilder("topic \"" + topic + "\", " + partitions.size() + " partition(s), "
                + records.size() + " record(s):");
        partitions.forEach((p, o) -> {
            out.append("\n  ").append(topic).append('-').append(p)
                    .append(" offsets [").append(o.beginning()).append(", ").append(o.end()).append(')');
            records.stream().filter(r -> r.partition() == p).forEach(r -> out.append("\n    offset ").append(r.offset())
                    .append("  key=").append(show(r.key())).append("  value=").append(show(r.value())));
        });
        return out.toString();
    }

    static String show(Object value) {
        return StandardRepresentation.STANDARD_REPRESENTATION.toStringOf(value);
    }

    /** Lets a caller's deserializer outlive the consumer, which closes the deserializers it was given. */
    private record KeepOpen<V>(Deserializer<V> delegate) implements Deserializer<V> {
        @Override
        public V deserialize(String topic, byte[] data) {
            return delegate.deserialize(topic, data);
        }

        @Override
        public V deserialize(String topic, Headers headers, byte[] data) {
            return delegate.deserialize(topic, headers, data);
        }

        @Override
        public V deserialize(String topic, Headers headers, ByteBuffer data) {
            return delegate.deserialize(topic, headers, data);
        }

        @Override
        public void close() {
        }
    }
}
