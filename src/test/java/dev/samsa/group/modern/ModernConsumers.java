package dev.samsa.group.modern;

import dev.samsa.KafkaCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * Real {@code group.protocol=consumer} clients for the KIP-848 tests, and an ownership ledger that every member's
 * rebalance listener writes: a partition assigned to one member while another still holds it is a violation.
 */
final class ModernConsumers {

    private ModernConsumers() {
    }

    /** Brokers that tell members to heartbeat every 200 ms, so reconciliation takes a fraction of a second. */
    static KafkaCluster.Builder fastHeartbeats(KafkaCluster.Builder builder) {
        return builder.brokerConfig("group.consumer.heartbeat.interval.ms", "200");
    }

    static KafkaConsumer<String, String> consumer(KafkaCluster cluster, String group, Map<String, Object> overrides) {
        Map<String, Object> config = cluster.consumerConfig(group);
        config.put("group.protocol", "consumer");
        config.put("enable.auto.commit", "false");
        config.putAll(overrides);
        return new KafkaConsumer<>(config);
    }

    /** Who owns what, as the members' rebalance listeners say; violations are kept, never thrown from a callback. */
    static final class Ledger {
        private final Map<TopicPartition, String> owners = new ConcurrentHashMap<>();
        private final List<String> violations = new CopyOnWriteArrayList<>();

        ConsumerRebalanceListener listener(String member) {
            return new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                    for (TopicPartition tp : partitions) {
                        String previous = owners.putIfAbsent(tp, member);
                        if (previous != null && !previous.equals(member)) {
                            violations.add(tp + " assigned to " + member + " while " + previous + " owns it");
                        }
                    }
                }

                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                    partitions.forEach(tp -> owners.remove(tp, member));
                }

                @Override
                public void onPartitionsLost(Collection<TopicPartition> partitions) {
                    partitions.forEach(tp -> owners.remove(tp, member));
                }
            };
        }

        List<String> violations() {
            return List.copyOf(violations);
        }

        Map<TopicPartition, String> owners() {
            return Map.copyOf(owners);
        }
    }

    /** Polls each consumer once, briefly, so their callbacks and acknowledgements run on this thread. */
    static void pollAll(List<KafkaConsumer<String, String>> consumers) {
        for (KafkaConsumer<String, String> c : consumers) {
            c.poll(Duration.ofMillis(20));
        }
    }

    static List<TopicPartition> partitions(String topic, int count) {
        List<TopicPartition> all = new ArrayList<>();
        for (int p = 0; p < count; p++) {
            all.add(new TopicPartition(topic, p));
        }
        return all;
    }

    static Set<TopicPartition> union(List<KafkaConsumer<String, String>> consumers) {
        Set<TopicPartition> all = new java.util.HashSet<>();
        consumers.forEach(c -> all.addAll(c.assignment()));
        return all;
    }
}
