package dev.samsa.cluster;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.TopicPartition;

/**
 * What consumers were sent and what groups committed, kept so that a test can find records delivered to a group
 * twice and offsets committed past anything delivered. The broker knows a fetch only by its client id; the check
 * matches it to a group member by the client id the member joined with. Bounded as {@link ProduceHistory}.
 */
public final class ConsumerHistory {

    /** Records {@code firstOffset}..{@code lastOffset} of a partition sent to a consumer client. */
    public record Delivery(String clientId, TopicPartition partition, long firstOffset, long lastOffset, long timeMs) {
    }

    /** An offset a group member committed, answered without error. */
    public record Commit(String groupId, String memberId, int generation, TopicPartition partition, long offset,
            long timeMs) {
    }

    private final int capacity;
    private boolean enabled = true;
    private List<Delivery> deliveries = new ArrayList<>();
    private List<Commit> commits = new ArrayList<>();

    public ConsumerHistory(int capacity) {
        this.capacity = capacity;
    }

    public void enabled(boolean enabled) {
        this.enabled = enabled;
    }

    public void delivered(Delivery delivery) {
        if (enabled) {
            deliveries = bounded(deliveries);
            deliveries.add(delivery);
        }
    }

    public void committed(Commit commit) {
        if (enabled) {
            commits = bounded(commits);
            commits.add(commit);
        }
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
