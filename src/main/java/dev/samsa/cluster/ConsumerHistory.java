package dev.samsa.cluster;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;

/**
 * What consumers were sent and processed, and what groups committed, kept so that a test can find records delivered
 * to a group twice and records skipped. A fetch names no group: it carries the client id, which the history matches
 * to the group memberships that client id holds at that moment (its last successful SyncGroup, or ConsumerGroupHeartbeat
 * for the consumer protocol). Processing is what a test reports ({@code KafkaCluster.recordProcessed}); the broker
 * cannot see it. Bounded as {@link ProduceHistory}; loop-owned.
 */
public final class ConsumerHistory {

    /** A member of a group as of its last successful SyncGroup (generation) or heartbeat (member epoch). */
    public record Member(String groupId, String memberId, int generation, String clientId) {
        @Override
        public String toString() {
            return memberId + " (generation " + generation + ", client " + clientId + ")";
        }
    }

    /**
     * Records {@code firstOffset}..{@code lastOffset} of a partition sent to a consumer client, with the group
     * memberships that client held when it was sent them.
     */
    public record Delivery(String clientId, TopicPartition partition, long firstOffset, long lastOffset, long timeMs,
            List<Member> members) {
    }

    /** An offset a group member committed, answered without error. */
    public record Commit(String groupId, String memberId, int generation, TopicPartition partition, long offset,
            long timeMs) {
    }

    private final int capacity;
    private boolean enabled = true;
    private List<Delivery> deliveries = new ArrayList<>();
    private List<Commit> commits = new ArrayList<>();
    /** Client id to group id to the membership it holds. */
    private final Map<String, Map<String, Member>> memberships = new HashMap<>();
    /** Group id to partition to processed offsets, as ranges: first offset to last. */
    private final Map<String, Map<TopicPartition, TreeMap<Long, Long>>> processed = new HashMap<>();

    public ConsumerHistory(int capacity) {
        this.capacity = capacity;
    }

    public void enabled(boolean enabled) {
        this.enabled = enabled;
    }

    /** {@code member} synced or heartbeated successfully; a negative generation means it left the group. */
    public void member(Member member) {
        Map<String, Member> groups = memberships.computeIfAbsent(member.clientId(), c -> new HashMap<>());
        if (member.generation() < 0) {
            groups.remove(member.groupId());
        } else {
            groups.put(member.groupId(), member);
        }
    }

    public void delivered(String clientId, TopicPartition partition, long firstOffset, long lastOffset, long nowMs) {
        if (enabled) {
            deliveries = bounded(deliveries);
            deliveries.add(new Delivery(clientId, partition, firstOffset, lastOffset, nowMs,
                    List.copyOf(memberships.getOrDefault(clientId, Map.of()).values())));
        }
    }

    public void committed(Commit commit) {
        if (enabled) {
            commits = bounded(commits);
            commits.add(commit);
        }
    }

    /** A member of {@code groupId} processed the record at {@code offset}. */
    public void processed(String groupId, TopicPartition partition, long offset) {
        if (!enabled) {
            return;
        }
        TreeMap<Long, Long> ranges = processed.computeIfAbsent(groupId, g -> new HashMap<>())
                .computeIfAbsent(partition, p -> new TreeMap<>());
        Map.Entry<Long, Long> below = ranges.floorEntry(offset);
        if (below != null && below.getValue() >= offset) {
            return;
        }
        long first = below != null && below.getValue() == offset - 1 ? below.getKey() : offset;
        Long after = ranges.get(offset + 1);
        ranges.put(first, after != null ? after : offset);
        if (after != null) {
            ranges.remove(offset + 1);
        }
    }

    /** Whether the test reported processing for {@code groupId}: then processing, not delivery, decides skips. */
    public boolean reportsProcessing(String groupId) {
        return processed.containsKey(groupId);
    }

    public boolean wasProcessed(String groupId, TopicPartition partition, long offset) {
        TreeMap<Long, Long> ranges = processed.getOrDefault(groupId, Map.of()).get(partition);
        Map.Entry<Long, Long> below = ranges == null ? null : ranges.floorEntry(offset);
        return below != null && below.getValue() >= offset;
    }

    private <T> List<T> bounded(List<T> list) {
        return list.size() < capacity ? list : new ArrayList<>(list.subList(list.size() / 2, list.size()));
    }

    public List<Delivery> deliveries() {
        return List.copyOf(deliveries);
    }

    public List<Commit> commits() {
        return List.copyOf(commits);
    }
}
