package dev.samsa.group.modern;

import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.Uuid;

/**
 * Partitions by topic id, as the new protocol names them (a topic deleted and created again is another topic). Sorted,
 * so that what is written, answered and compared is the same every run. Immutable.
 */
public record Assignment(SortedMap<Uuid, SortedSet<Integer>> partitions) {

    public static final Assignment EMPTY = new Assignment(new TreeMap<>());

    public Assignment {
        SortedMap<Uuid, SortedSet<Integer>> copy = new TreeMap<>();
        partitions.forEach((topic, ps) -> {
            if (!ps.isEmpty()) {
                copy.put(topic, Collections.unmodifiableSortedSet(new TreeSet<>(ps)));
            }
        });
        partitions = Collections.unmodifiableSortedMap(copy);
    }

    public static Assignment of(Map<Uuid, ? extends Set<Integer>> partitions) {
        SortedMap<Uuid, SortedSet<Integer>> sorted = new TreeMap<>();
        partitions.forEach((topic, ps) -> sorted.put(topic, new TreeSet<>(ps)));
        return new Assignment(sorted);
    }

    public SortedSet<Integer> partitions(Uuid topicId) {
        return partitions.getOrDefault(topicId, Collections.emptySortedSet());
    }

    public boolean isEmpty() {
        return partitions.isEmpty();
    }

    public int size() {
        return partitions.values().stream().mapToInt(Set::size).sum();
    }

    @Override
    public String toString() {
        return partitions.toString();
    }
}
