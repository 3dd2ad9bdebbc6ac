package dev.samsa.group;

import dev.samsa.coordinator.CoordinatorShard;
import dev.samsa.event.CoordinatorLoaded;
import dev.samsa.event.Timeline;
import dev.samsa.group.classic.ClassicGroup;
import dev.samsa.group.classic.ClassicGroupMetadata;
import dev.samsa.group.modern.consumer.ConsumerGroup;
import dev.samsa.group.modern.consumer.ConsumerGroupRecords;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.Record;

/**
 * The groups and committed offsets of one {@code __consumer_offsets} partition, held by the broker that leads it and
 * rebuilt by replaying that broker's replica of the partition when it takes over (Kafka's {@code GroupCoordinatorShard}).
 *
 * <p>Offsets committed in a transaction (TxnOffsetCommit) arrive as records of a transactional batch and stay pending
 * in {@link #pending}, per producer id, invisible as committed, until the transaction's marker lands in this
 * partition: COMMIT makes them the committed offsets, unless a later record already committed the partition (Kafka's
 * rule: the record further in the log wins), ABORT drops them. The live path and the load path are the same
 * {@link #replay(long, long, short, Record)} and {@link #replayEndTransactionMarker}. Owned by the cluster loop.
 */
final class GroupCoordinatorShard implements CoordinatorShard {

    final int partition;
    final int brokerId;
    final Map<String, ClassicGroup> groups = new TreeMap<>();
    /** KIP-848 consumer groups; a group id is in one of the two maps at most. */
    final Map<String, ConsumerGroup> consumerGroups = new TreeMap<>();
    /** The value of each consumer group's last record in the log, so that a write that changes nothing is skipped. */
    final Map<String, ByteBuffer> consumerGroupValues = new HashMap<>();
    final Map<String, Map<TopicPartition, CommittedOffset>> offsets = new HashMap<>();
    /** Where in the log each committed offset was written, for a COMMIT marker to tell which one is newer. */
    private final Map<String, Map<TopicPartition, Long>> committedAt = new HashMap<>();
    final PendingTransactionalOffsets pending = new PendingTransactionalOffsets();
    /** Each producer's epoch and last sequence in this partition's log, for the next transactional batch. */
    private final Map<Long, ProducerSequence> sequences = new HashMap<>();
    private final Timeline timeline;
    private final long loadedAtMs;
    private final long loadedAtWallMs;
    /** Each group's last GroupMetadata record while the log is replayed. */
    private final Map<String, ClassicGroupMetadata> loadedMetadata = new HashMap<>();
    /** Each consumer group's last record value while the log is replayed. */
    private final Map<String, ByteBuffer> loadedConsumerGroups = new HashMap<>();

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

    /** {@code recordOffset}: where the record that commits it sits in this partition's log. */
    void putOffset(String groupId, TopicPartition tp, CommittedOffset offset, long recordOffset) {
        offsets.computeIfAbsent(groupId, g -> new LinkedHashMap<>()).put(tp, offset);
        committedAt.computeIfAbsent(groupId, g -> new HashMap<>()).put(tp, recordOffset);
    }

    /** Removes the committed offset and, as a tombstone does in Kafka, any offset a transaction holds pending for it. */
    void removeOffset(String groupId, TopicPartition tp) {
        remove(offsets, groupId, tp);
        remove(committedAt, groupId, tp);
        pending.remove(groupId, tp);
    }

    void removeAllOffsets(String groupId) {
        offsets.remove(groupId);
        committedAt.remove(groupId);
        pending.removeGroup(groupId);
    }

    private static void remove(Map<String, ? extends Map<TopicPartition, ?>> byGroup, String groupId, TopicPartition tp) {
        Map<TopicPartition, ?> m = byGroup.get(groupId);
        if (m != null) {
            m.remove(tp);
            if (m.isEmpty()) {
                byGroup.remove(groupId);
            }
        }
    }

    /**
     * The base sequence of {@code producerId}'s next transactional batch in this partition: the one after its last
     * batch in the same epoch, 0 in a new epoch (see {@link dev.samsa.coordinator.CoordinatorResult.Producer}).
     */
    int nextSequence(long producerId, short producerEpoch) {
        ProducerSequence last = sequences.get(producerId);
        if (last == null || last.epoch() != producerEpoch || last.lastSequence() == Integer.MAX_VALUE) {
            return 0;
        }
        return last.lastSequence() + 1;
    }

    private record ProducerSequence(short epoch, int lastSequence) {
    }

    /**
     * Applies one record as Kafka's loader does, last record per key wins: offsets at once; a group's metadata is kept
     * until {@link #onLoaded} builds the group as its last GroupMetadata record left it.
     */
    @Override
    public void replay(long offset, Record record) {
        if (ConsumerGroupRecords.isConsumerGroupRecord(record)) {
            ByteBuffer value = ConsumerGroupRecords.value(record);
            if (value == null) {
                loadedConsumerGroups.remove(ConsumerGroupRecords.groupId(record));
            } else {
                loadedConsumerGroups.put(ConsumerGroupRecords.groupId(record), value);
            }
            return;
        }
        GroupRecords.Decoded d = GroupRecords.decode(record);
        if (d.partition() != null) {
            if (d.tombstone()) {
                removeOffset(d.groupId(), d.partition());
            } else {
                putOffset(d.groupId(), d.partition(), d.offset(), offset);
            }
        } else if (d.tombstone()) {
            loadedMetadata.remove(d.groupId());
        } else {
            loadedMetadata.put(d.groupId(), d.group());
        }
    }

    /**
     * An offset committed in {@code producerId}'s transaction: pending until the marker. The coordinator writes no
     * other record in a transaction; a tombstone there deletes as anywhere.
     */
    @Override
    public void replay(long offset, long producerId, short producerEpoch, Record record) {
        sequences.put(producerId, new ProducerSequence(producerEpoch, record.sequence()));
        GroupRecords.Decoded d = GroupRecords.decode(record);
        if (d.partition() == null || d.tombstone()) {
            replay(offset, record);
        } else {
            pending.put(producerId, d.groupId(), d.partition(), d.offset(), offset);
        }
    }

    /** Kafka's {@code replayEndTransactionMarker}: COMMIT moves the producer's pending offsets to committed, ABORT drops them. */
    @Override
    public void replayEndTransactionMarker(long offset, long producerId, short producerEpoch, boolean committed) {
        ProducerSequence last = sequences.get(producerId);
        if (last != null && last.epoch() != producerEpoch) {
            // A marker of a bumped epoch (transaction version 2) starts the producer's sequence again.
            sequences.put(producerId, new ProducerSequence(producerEpoch, -1));
        }
        for (PendingTransactionalOffsets.Pending p : pending.complete(producerId)) {
            Long current = committedAt.getOrDefault(p.groupId(), Map.of()).get(p.partition());
            if (committed && (current == null || p.recordOffset() > current)) {
                putOffset(p.groupId(), p.partition(), p.offset(), p.recordOffset());
            }
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
        loadedConsumerGroups.forEach((groupId, value) -> consumerGroups.put(groupId, ConsumerGroupRecords.decode(groupId, value, timeline)));
        consumerGroupValues.putAll(loadedConsumerGroups);
        loadedConsumerGroups.clear();
        for (String groupId : offsets.keySet()) {
            if (!consumerGroups.containsKey(groupId)) {
                groups.computeIfAbsent(groupId, g -> ClassicGroup.loaded(g, timeline, loadedAtMs));
            }
        }
        for (String groupId : pending.groupIds()) {
            if (!consumerGroups.containsKey(groupId)) {
                groups.computeIfAbsent(groupId, g -> ClassicGroup.loaded(g, timeline, loadedAtMs));
            }
        }
        List<CoordinatorLoaded.LoadedGroup> loaded = new ArrayList<>();
        groups.values().forEach(g -> loaded.add(new CoordinatorLoaded.LoadedGroup(g.groupId(), g.state().toString(),
                g.generationId(), g.numMembers())));
        consumerGroups.values().forEach(g -> loaded.add(new CoordinatorLoaded.LoadedGroup(g.groupId(), g.stateName(),
                g.groupEpoch(), g.numMembers())));
        timeline.record(new CoordinatorLoaded(partition, brokerId, loaded, replayed, skipped));
    }
}
