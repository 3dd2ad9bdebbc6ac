package dev.samsa.group;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.TopicPartition;

/**
 * The offsets of one {@code __consumer_offsets} partition that open transactions have committed (Kafka's
 * {@code pendingTransactionalOffsets} and {@code openTransactions}): per producer id, group and partition, the last
 * offset the producer's transaction wrote and where its record sits in the log. Owned by the cluster loop.
 */
final class PendingTransactionalOffsets {

    /** An offset a transaction holds, not yet committed. */
    record Pending(String groupId, TopicPartition partition, CommittedOffset offset, long recordOffset) {
    }

    private final Map<Long, Map<String, Map<TopicPartition, Pending>>> byProducer = new LinkedHashMap<>();

    void put(long producerId, String groupId, TopicPartition tp, CommittedOffset offset, long recordOffset) {
        byProducer.computeIfAbsent(producerId, p -> new LinkedHashMap<>()).computeIfAbsent(groupId, g -> new LinkedHashMap<>())
                .put(tp, new Pending(groupId, tp, offset, recordOffset));
    }

    /** The producer's transaction ended: its pending offsets, in the order written, and it holds none any more. */
    List<Pending> complete(long producerId) {
        Map<String, Map<TopicPartition, Pending>> byGroup = byProducer.remove(producerId);
        List<Pending> all = new ArrayList<>();
        if (byGroup != null) {
            byGroup.values().forEach(m -> all.addAll(m.values()));
        }
        return all;
    }

    /** The partitions, by group, that {@code producerId}'s open transaction holds offsets of. */
    Map<String, Set<TopicPartition>> heldBy(long producerId) {
        Map<String, Set<TopicPartition>> held = new LinkedHashMap<>();
        byProducer.getOrDefault(producerId, Map.of()).forEach((group, offsets) -> held.put(group, Set.copyOf(offsets.keySet())));
        return held;
    }

    /** Whether an open transaction holds an offset of the group's partition: OffsetFetch with requireStable must wait. */
    boolean contains(String groupId, TopicPartition tp) {
        return byProducer.values().stream().anyMatch(byGroup -> byGroup.getOrDefault(groupId, Map.of()).containsKey(tp));
    }

    /** Whether an open transaction holds any offset of the group. */
    boolean containsGroup(String groupId) {
        return byProducer.values().stream().anyMatch(byGroup -> byGroup.containsKey(groupId));
    }

    /** The group's partitions that open transactions hold offsets of. */
    Set<TopicPartition> partitions(String groupId) {
        Set<TopicPartition> all = new TreeSet<>(Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition));
        byProducer.values().forEach(byGroup -> all.addAll(byGroup.getOrDefault(groupId, Map.of()).keySet()));
        return all;
    }

    Set<String> groupIds() {
        Set<String> all = new TreeSet<>();
        byProducer.values().forEach(byGroup -> all.addAll(byGroup.keySet()));
        return all;
    }

    void remove(String groupId, TopicPartition tp) {
        byProducer.values().forEach(byGroup -> {
            Map<TopicPartition, Pending> m = byGroup.get(groupId);
            if (m != null) {
                m.remove(tp);
                if (m.isEmpty()) {
                    byGroup.remove(groupId);
                }
            }
        });
    }

    void removeGroup(String groupId) {
        byProducer.values().forEach(byGroup -> byGroup.remove(groupId));
    }
}
