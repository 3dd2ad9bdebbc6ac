package dev.samsa.group;

import dev.samsa.coordinator.CoordinatorShard;
import dev.samsa.event.CoordinatorLoaded;
import dev.samsa.event.Timeline;
import dev.samsa.group.classic.ClassicGroup;
import dev.samsa.group.classic.ClassicGroupMetadata;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.Record;

/**
 * The groups and committed offsets of one {@code __consumer_offsets} partition, held by the broker that leads it and
 * rebuilt by replaying that broker's replica of the partition when it takes over (Kafka's {@code GroupCoordinatorShard}).
 * Owned by the cluster loop.
 */
final class GroupCoordinatorShard implements CoordinatorShard {

    final int partition;
    final int brokerId;
    final Map<String, ClassicGroup> groups = new TreeMap<>();
    final Map<String, Map<TopicPartition, CommittedOffset>> offsets = new HashMap<>();
    private final Timeline timeline;
    private final long loadedAtMs;
    private final long loadedAtWallMs;
    /** Each group's last GroupMetadata record while the log is replayed. */
    private final Map<String, ClassicGroupMetadata> loadedMetadata = new HashMap<>();

    /** An empty shard; {@code nowMs} and {@code nowWallMs} are when its groups are loaded, which restarts their timers. */
    GroupCoordinatorShard(int partition, int brokerId, Timeline timeline, long nowMs, long nowWallMs) {
        this.partition = partition;
        this.brokerId = brokerId;
        this.timeline = timeline;
        this.loadedAtMs = nowMs;
        this.loadedAtWallMs = nowWallMs;
    }

    @Override
    public int partition() {
        return partition;
    }

    @Override
    public int brokerId() {
        return brokerId;
    }

    Map<TopicPartition, CommittedOffset> offsets(String groupId) {
        return offsets.getOrDefault(groupId, Map.of());
    }

    void putOffset(String groupId, TopicPartition tp, CommittedOffset offset) {
        offsets.computeIfAbsent(groupId, g -> new LinkedHashMap<>()).put(tp, offset);
    }

    void removeOffset(String groupId, TopicPartition tp) {
        Map<TopicPartition, CommittedOffset> m = offsets.get(groupId);
        if (m != null) {
            m.remove(tp);
            if (m.isEmpty()) {
                offsets.remove(groupId);
            }
        }
    }

    /**
     * Applies one record as Kafka's loader does, last record per key wins: offsets at once; a group's metadata is kept
     * until {@link #onLoaded} builds the group as its last GroupMetadata record left it.
     */
    @Override
    public void replay(long offset, Record record) {
        GroupRecords.Decoded d = GroupRecords.decode(record);
        if (d.partition() != null) {
            if (d.tombstone()) {
                removeOffset(d.groupId(), d.partition());
            } else {
                putOffset(d.groupId(), d.partition(), d.offset());
            }
        } else if (d.tombstone()) {
            loadedMetadata.remove(d.groupId());
        } else {
            loadedMetadata.put(d.groupId(), d.group());
        }
    }

    /**
     * A group comes back as its last GroupMetadata record left it (Stable with its members and assignment, or Empty); a
     * group known only by its offsets comes back Empty without a protocol type.
     */
    @Override
    public void onLoaded(int replayed, int skipped) {
        loadedMetadata.forEach((groupId, m) -> groups.put(groupId, ClassicGroup.loaded(groupId, m, timeline, loadedAtMs, loadedAtWallMs)));
        loadedMetadata.clear();
        for (String groupId : offsets.keySet()) {
            groups.computeIfAbsent(groupId, g -> ClassicGroup.loaded(g, timeline, loadedAtMs));
        }
        timeline.record(new CoordinatorLoaded(partition, brokerId, groups.values().stream()
                .map(g -> new CoordinatorLoaded.LoadedGroup(g.groupId(), g.state().toString(), g.generationId(), g.numMembers()))
                .toList(), replayed, skipped));
    }
}
