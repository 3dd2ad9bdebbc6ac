package dev.samsa.group.modern;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.Uuid;

/**
 * Kafka's default server assignor ("uniform"): partitions spread evenly over the members subscribed to their topic,
 * sticky, so that a change moves as few partitions as it can. Samsa's version keeps each partition with its previous
 * owner, gives the orphans to the least loaded subscriber, then moves partitions from the most to the least loaded
 * member while they differ by more than one. Ties go to the smaller member id, so the result is deterministic.
 */
public final class UniformAssignor implements ConsumerGroupAssignor {

    @Override
    public String name() {
        return "uniform";
    }

    @Override
    public Map<String, Assignment> assign(SortedMap<String, Set<Uuid>> subscriptions, Map<Uuid, TopicMetadata> topics,
                                          Map<String, Assignment> current) {
        Map<String, TreeMap<Uuid, SortedSet<Integer>>> result = new TreeMap<>();
        Map<String, Integer> load = new TreeMap<>();
        subscriptions.keySet().forEach(m -> {
            result.put(m, new TreeMap<>());
            load.put(m, 0);
        });
        List<Uuid> topicIds = new ArrayList<>(new TreeSet<>(topics.keySet()));
        List<TopicPartitionId> orphans = new ArrayList<>();
        for (Uuid topic : topicIds) {
            for (int p = 0; p < topics.get(topic).partitions(); p++) {
                String owner = previousOwner(current, subscriptions, topic, p);
                if (owner != null) {
                    add(result, load, owner, topic, p);
                } else {
                    orphans.add(new TopicPartitionId(topic, p));
                }
            }
        }
        for (TopicPartitionId tp : orphans) {
            leastLoaded(subscriptions, load, tp.topic(), Integer.MAX_VALUE).ifPresent(m -> add(result, load, m, tp.topic(), tp.partition()));
        }
        balance(subscriptions, result, load);
        Map<String, Assignment> assignments = new TreeMap<>();
        result.forEach((m, a) -> assignments.put(m, new Assignment(a)));
        return assignments;
    }

    private record TopicPartitionId(Uuid topic, int partition) {
    }

    private static String previousOwner(Map<String, Assignment> current, SortedMap<String, Set<Uuid>> subscriptions,
                                        Uuid topic, int partition) {
        for (Map.Entry<String, Assignment> e : current.entrySet()) {
            Set<Uuid> subscribed = subscriptions.get(e.getKey());
            if (subscribed != null && subscribed.contains(topic) && e.getValue().partitions(topic).contains(partition)) {
                return e.getKey();
            }
        }
        return null;
    }

    private static void add(Map<String, TreeMap<Uuid, SortedSet<Integer>>> result, Map<String, Integer> load, String member,
                            Uuid topic, int partition) {
        result.get(member).computeIfAbsent(topic, t -> new TreeSet<>()).add(partition);
        load.merge(member, 1, Integer::sum);
    }

    /** The member subscribed to {@code topic} with the fewest partitions, fewer than {@code below}. */
    private static java.util.Optional<String> leastLoaded(SortedMap<String, Set<Uuid>> subscriptions, Map<String, Integer> load,
                                                          Uuid topic, int below) {
        return subscriptions.entrySet().stream()
                .filter(e -> e.getValue().contains(topic) && load.get(e.getKey()) < below)
                .map(Map.Entry::getKey)
                .min(Comparator.comparing((String m) -> load.get(m)).thenComparing(m -> m));
    }

    /** Moves one partition at a time from a member to one holding at least two fewer, until none can move. */
    private static void balance(SortedMap<String, Set<Uuid>> subscriptions, Map<String, TreeMap<Uuid, SortedSet<Integer>>> result,
                                Map<String, Integer> load) {
        boolean moved = true;
        while (moved) {
            moved = false;
            List<String> byLoad = new ArrayList<>(load.keySet());
            byLoad.sort(Comparator.comparing((String m) -> -load.get(m)).thenComparing(m -> m));
            for (String donor : byLoad) {
                for (Map.Entry<Uuid, SortedSet<Integer>> e : result.get(donor).descendingMap().entrySet()) {
                    if (e.getValue().isEmpty()) {
                        continue;
                    }
                    var taker = leastLoaded(subscriptions, load, e.getKey(), load.get(donor) - 1);
                    if (taker.isPresent()) {
                        int partition = e.getValue().last();
                        e.getValue().remove(partition);
                        load.merge(donor, -1, Integer::sum);
                        add(result, load, taker.get(), e.getKey(), partition);
                        moved = true;
                        break;
                    }
                }
                if (moved) {
                    break;
                }
            }
        }
    }
}
