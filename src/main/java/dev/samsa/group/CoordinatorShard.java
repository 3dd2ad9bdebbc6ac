package dev.samsa.group;

import dev.samsa.event.CoordinatorLoaded;
import dev.samsa.event.CoordinatorRecordSkipped;
import dev.samsa.event.Timeline;
import dev.samsa.group.classic.ClassicGroup;
import dev.samsa.group.classic.ClassicGroupMetadata;
import dev.samsa.log.LogReadInfo;
import dev.samsa.log.PartitionLog;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.MutableRecordBatch;
import org.apache.kafka.common.record.Record;

/**
 * The groups and committed offsets of one {@code __consumer_offsets} partition, held by the broker that leads it and
 * rebuilt from that broker's replica of the partition when it takes over. Owned by the cluster loop.
 */
final class CoordinatorShard {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(CoordinatorShard.class);

    final int partition;
    final int brokerId;
    final Map<String, ClassicGroup> groups = new TreeMap<>();
    final Map<String, Map<TopicPartition, CommittedOffset>> offsets = new HashMap<>();

    CoordinatorShard(int partition, int brokerId) {
        this.partition = partition;
        this.brokerId = brokerId;
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
     * Replays the whole log, last record per key wins, as Kafka's loader: a group comes back as its last GroupMetadata
     * record left it (Stable with its members and assignment, or Empty); a group known only by its offsets comes back
     * Empty without a protocol type. A record that does not decode is skipped, logged and put on the timeline.
     */
    static CoordinatorShard load(int partition, int brokerId, PartitionLog log, Timeline timeline, long nowMs, long nowWallMs) {
        CoordinatorShard shard = new CoordinatorShard(partition, brokerId);
        Map<String, ClassicGroupMetadata> metadata = new HashMap<>();
        long next = log.logStartOffset();
        long end = log.logEndOffset();
        int records = 0;
        int skipped = 0;
        while (next < end) {
            LogReadInfo info = log.read(next, 1 << 20, end, true);
            long before = next;
            for (MutableRecordBatch batch : info.records().batches()) {
                for (Record r : batch) {
                    if (r.key() == null) {
                        continue;
                    }
                    GroupRecords.Decoded d;
                    try {
                        d = GroupRecords.decode(r);
                    } catch (RuntimeException e) {
                        // One bad record must not cost every group of the shard: skip it and say so.
                        LOG.warn("Skipping the undecodable record at offset {} of __consumer_offsets-{} on broker {}: {}",
                                r.offset(), partition, brokerId, e.toString());
                        timeline.record(new CoordinatorRecordSkipped(partition, r.offset(), brokerId, e.toString()));
                        skipped++;
                        continue;
                    }
                    records++;
                    if (d.partition() != null) {
                        if (d.tombstone()) {
                            shard.removeOffset(d.groupId(), d.partition());
                        } else {
                            shard.putOffset(d.groupId(), d.partition(), d.offset());
                        }
                    } else if (d.tombstone()) {
                        metadata.remove(d.groupId());
                    } else {
                        metadata.put(d.groupId(), d.group());
                    }
                }
                next = batch.nextOffset();
            }
            if (next == before) {
                break;
            }
        }
        metadata.forEach((groupId, m) -> shard.groups.put(groupId, ClassicGroup.loaded(groupId, m, timeline, nowMs, nowWallMs)));
        for (String groupId : shard.offsets.keySet()) {
            shard.groups.computeIfAbsent(groupId, g -> ClassicGroup.loaded(g, timeline, nowMs));
        }
        timeline.record(new CoordinatorLoaded(partition, brokerId, shard.groups.values().stream()
                .map(g -> new CoordinatorLoaded.LoadedGroup(g.groupId(), g.state().toString(), g.generationId(), g.numMembers()))
                .toList(), records, skipped));
        return shard;
    }
}
