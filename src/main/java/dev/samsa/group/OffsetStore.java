package dev.samsa.group;

import dev.samsa.group.classic.ClassicGroup;
import dev.samsa.group.classic.ClassicGroupState;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.CoordinatorNotAvailableException;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.IllegalGenerationException;
import org.apache.kafka.common.errors.GroupNotEmptyException;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.UnknownMemberIdException;
import org.apache.kafka.common.record.SimpleRecord;

/**
 * Committed offsets, as Kafka's {@code OffsetMetadataManager}: OffsetCommit (checked against the member and generation;
 * generation -1 commits for an Empty or unknown group, which creates a simple group), OffsetFetch, OffsetDelete, and
 * expiry. Offsets of an Empty classic group expire offsets.retention.minutes after the group became Empty; those of a
 * simple group (no protocol type) that long after their commit. This is an age deadline (DESIGN.md) and fires when a
 * manual clock jumps past it ("offsets-expire-&lt;group&gt;"). A group left with no members and no offsets becomes
 * Dead and is removed. Owned by the cluster loop.
 */
public final class OffsetStore {

    /** Kafka's offsets.retention.check.interval.ms: how long an Empty group without offsets lingers. */
    static final long RETENTION_CHECK_INTERVAL_MS = 600_000L;

    private final GroupCoordinator coordinator;

    OffsetStore(GroupCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    static String expiryKey(String groupId) {
        return "offsets-expire-" + groupId;
    }

    /**
     * Validates the committer and stores the offsets; returns the group-level outcome (per-partition errors are the
     * caller's, e.g. an unknown topic).
     *
     * @throws ApiException UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION, FENCED_INSTANCE_ID, REBALANCE_IN_PROGRESS,
     *         GROUP_ID_NOT_FOUND (v9+), COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR, as Kafka answers
     */
    public void commit(int brokerId, short version, String groupId, String memberId, String instanceId, int generation,
                       Map<TopicPartition, CommittedOffset> commits) {
        CoordinatorShard shard = coordinator.shardFor(brokerId, groupId);
        ClassicGroup group = shard.groups.get(groupId);
        if (group == null) {
            if (generation >= 0) {
                if (version >= 9) {
                    throw new GroupIdNotFoundException("Group " + groupId + " does not exist.");
                }
                throw new IllegalGenerationException("Group " + groupId + " does not exist; rejoin the group.");
            }
            group = new ClassicGroup(groupId, coordinator.cluster().timeline(), coordinator.cluster().nowMs());
            shard.groups.put(groupId, group);
            coordinator.cluster().timeline().record("GroupCreated", "group=" + groupId + " (simple, by an offset commit)");
        }
        throwIfCommitIsInvalid(group, memberId, instanceId, generation);
        List<SimpleRecord> records = new ArrayList<>();
        long now = coordinator.cluster().nowMs();
        commits.forEach((tp, o) -> records.add(GroupRecords.offsetCommit(now, groupId, tp, o)));
        if (!records.isEmpty()) {
            coordinator.append(shard, records.toArray(new SimpleRecord[0]));
        }
        commits.forEach((tp, o) -> shard.putOffset(groupId, tp, o));
        scheduleExpiry(shard, group);
    }

    private static void throwIfCommitIsInvalid(ClassicGroup group, String memberId, String instanceId, int generation) {
        if (group.isInState(ClassicGroupState.DEAD)) {
            throw new CoordinatorNotAvailableException("Group " + group.groupId() + " is dead; find the coordinator again.");
        }
        if (generation < 0 && group.isInState(ClassicGroupState.EMPTY)) {
            return;
        }
        if (generation >= 0 || !memberId.isEmpty() || instanceId != null) {
            group.throwIfMemberIsInvalid(memberId, instanceId);
            if (generation != group.generationId()) {
                throw new IllegalGenerationException("Generation " + generation + " is not the current generation "
                        + group.generationId() + " of group " + group.groupId() + "; the member was removed, rejoin the group.");
            }
        } else if (!group.isInState(ClassicGroupState.EMPTY)) {
            throw new UnknownMemberIdException("Group " + group.groupId() + " has members; only they may commit.");
        }
        if (group.isInState(ClassicGroupState.COMPLETING_REBALANCE)) {
            throw new RebalanceInProgressException("Group " + group.groupId() + " is completing a rebalance; commit after it.");
        }
    }

    /**
     * OffsetFetch for one group: the committed offsets of {@code partitions}, or all when null. Unknown partitions are
     * absent. (requireStable has nothing to wait for until transactions exist.)
     *
     * @throws GroupIdNotFoundException when the group is Dead
     */
    public Map<TopicPartition, CommittedOffset> fetch(int brokerId, String groupId, List<TopicPartition> partitions) {
        CoordinatorShard shard = coordinator.shardFor(brokerId, groupId);
        ClassicGroup group = shard.groups.get(groupId);
        if (group != null && group.isInState(ClassicGroupState.DEAD)) {
            throw new GroupIdNotFoundException("Group " + groupId + " is dead.");
        }
        Map<TopicPartition, CommittedOffset> all = shard.offsets(groupId);
        if (partitions == null) {
            return new LinkedHashMap<>(all);
        }
        Map<TopicPartition, CommittedOffset> result = new LinkedHashMap<>();
        for (TopicPartition tp : partitions) {
            CommittedOffset o = all.get(tp);
            if (o != null) {
                result.put(tp, o);
            }
        }
        return result;
    }

    /**
     * OffsetDelete: removes the offsets of partitions the group does not consume.
     *
     * @throws GroupIdNotFoundException when the group does not exist
     * @throws GroupNotEmptyException when a classic group has members (Kafka refuses then; consumer groups would check subscriptions)
     */
    public void delete(int brokerId, String groupId, List<TopicPartition> partitions) {
        CoordinatorShard shard = coordinator.shardFor(brokerId, groupId);
        ClassicGroup group = shard.groups.get(groupId);
        if (group == null || group.isInState(ClassicGroupState.DEAD)) {
            throw new GroupIdNotFoundException("Group " + groupId + " does not exist.");
        }
        if (!group.isInState(ClassicGroupState.EMPTY)) {
            throw new GroupNotEmptyException("Group " + groupId + " has members; stop them before deleting its offsets.");
        }
        List<SimpleRecord> tombstones = new ArrayList<>();
        long now = coordinator.cluster().nowMs();
        for (TopicPartition tp : partitions) {
            if (shard.offsets(groupId).containsKey(tp)) {
                tombstones.add(GroupRecords.offsetCommit(now, groupId, tp, null));
            }
        }
        if (!tombstones.isEmpty()) {
            coordinator.append(shard, tombstones.toArray(new SimpleRecord[0]));
        }
        partitions.forEach(tp -> shard.removeOffset(groupId, tp));
    }

    void deleteAll(CoordinatorShard shard, String groupId) {
        List<TopicPartition> all = new ArrayList<>(shard.offsets(groupId).keySet());
        long now = coordinator.cluster().nowMs();
        if (!all.isEmpty()) {
            coordinator.append(shard, all.stream().map(tp -> GroupRecords.offsetCommit(now, groupId, tp, null)).toArray(SimpleRecord[]::new));
        }
        shard.offsets.remove(groupId);
    }

    private long retentionMs() {
        return coordinator.configs(-1).getLong("offsets.retention.minutes") * 60_000L;
    }

    /** Arms the group's age timer: the first moment one of its offsets (or, without offsets, the group) expires. */
    void scheduleExpiry(CoordinatorShard shard, ClassicGroup group) {
        String key = expiryKey(group.groupId());
        if (!group.isInState(ClassicGroupState.EMPTY)) {
            coordinator.cluster().scheduler().cancel(key);
            return;
        }
        Map<TopicPartition, CommittedOffset> offsets = shard.offsets(group.groupId());
        long deadline;
        if (offsets.isEmpty()) {
            deadline = group.stateTimestampMs() + RETENTION_CHECK_INTERVAL_MS;
        } else if (group.protocolType() != null) {
            deadline = group.stateTimestampMs() + retentionMs();
        } else {
            deadline = offsets.values().stream().mapToLong(CommittedOffset::commitTimestampMs).min().orElseThrow() + retentionMs();
        }
        String groupId = group.groupId();
        coordinator.cluster().scheduler().schedule(key, deadline, () -> expire(shard, groupId));
    }

    private void expire(CoordinatorShard shard, String groupId) {
        ClassicGroup group = shard.groups.get(groupId);
        if (group == null || !group.isInState(ClassicGroupState.EMPTY)) {
            return;
        }
        long now = coordinator.cluster().nowMs();
        long retention = retentionMs();
        List<TopicPartition> expired = new ArrayList<>();
        shard.offsets(groupId).forEach((tp, o) -> {
            long base = group.protocolType() != null ? group.stateTimestampMs() : o.commitTimestampMs();
            if (now - base >= retention) {
                expired.add(tp);
            }
        });
        if (!expired.isEmpty()) {
            coordinator.append(shard, expired.stream().map(tp -> GroupRecords.offsetCommit(now, groupId, tp, null)).toArray(SimpleRecord[]::new));
            expired.forEach(tp -> shard.removeOffset(groupId, tp));
            coordinator.cluster().timeline().record("OffsetsExpired", "group=" + groupId + " partitions=" + expired);
        }
        if (shard.offsets(groupId).isEmpty()) {
            coordinator.removeGroup(shard, group, "Empty with no offsets left");
        } else {
            scheduleExpiry(shard, group);
        }
    }
}
