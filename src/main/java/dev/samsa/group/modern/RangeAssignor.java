package dev.samsa.group.modern;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.Uuid;

/**
 * Kafka's "range" server assignor: per topic, its subscribers in member-id order each take a contiguous range of
 * partitions, the first {@code partitions % members} one more, so members subscribed to the same topics get the same
 * partition numbers of each (co-partitioning). Not sticky.
 */
public final class RangeAssignor implements ConsumerGroupAssignor {

    @Override
    public String name() {
        return "range";
    }

    @Override
    public Map<String, Assignment> assign(SortedMap<String, Set<Uuid>> subscriptions, Map<Uuid, TopicMetadata> topics,
                                          Map<String, Assignment> current) {
        Map<String, TreeMap<Uuid, SortedSet<Integer>>> result = new TreeMap<>();
        subscriptions.keySet().forEach(m -> result.put(m, new TreeMap<>()));
        for (Uuid topic : new TreeSet<>(topics.keySet())) {
            List<String> subscribers = new ArrayList<>();
            subscriptions.forEach((m, t) -> {
                if (t.contains(topic)) {
                    subscribers.add(m);
                }
            });
            if (subscribers.isEmpty()) {
                continue;
            }
            int partitions = topics.get(topic).partitions();
            int per = partitions / subscribers.size();
            int extra = partitions % subscribers.size();
            int next = 0;
            for (int i = 0; i < subscribers.size(); i++) {
                int count = per + (i < extra ? 1 : 0);
                SortedSet<Integer> range = new TreeSet<>();
                for (int p = next; p < next + count; p++) {
                    range.add(p);
                }
                next += count;
                result.get(subscribers.get(i)).put(topic, range);
            }
        }
        Map<String, Assignment> assignments = new TreeMap<>();
        result.forEach((m, a) -> assignments.put(m, new Assignment(a)));
        return assignments;
    }
}
