package dev.samsa.group;

import dev.samsa.coordinator.CoordinatorResult;
import dev.samsa.event.GroupCreated;
import dev.samsa.event.OffsetsExpired;
import dev.samsa.event.OffsetsExpiryFailed;
import dev.samsa.group.classic.ClassicGroup;
import dev.samsa.group.classic.ClassicGroupLiveness;
import dev.samsa.group.modern.consumer.ConsumerGroup;
import dev.samsa.group.modern.consumer.ConsumerGroupState;
import dev.samsa.group.classic.ClassicGroupState;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.CoordinatorNotAvailableException;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.GroupNotEmptyException;
import org.apache.kafka.common.errors.IllegalGenerationException;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.StaleMemberEpochException;
import org.apache.kafka.common.errors.UnknownMemberIdException;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * Committed offsets, as Kafka's {@code OffsetMetadataManager}: OffsetCommit (checked against the member and generation;
 * generation -1 commits for an Empty or unknown group, which creates a simple group), TxnOffsetCommit (offsets written
 * in a producer's transaction, pending in the shard until its marker), OffsetFetch (with requireStable, a partition
 * such a transaction holds is unstable), OffsetDelete, and expiry. Every write is answered once it is replicated.
 *
 * <p>Expiry, as Kafka's {@code cleanupGroupMetadata}: every offsets.retention.check.interval.ms of cluster time
 * ("group-expiration-&lt;partition&gt;", armed when the partition is loaded) each group's offsets are checked against
 * offsets.retention.minutes: those of an Empty classic group count from when it became Empty, those of a simple group
 * (no protocol type), those of topics a Stable classic consumer group no longer subscribes to and those of topics no
 * member of a KIP-848 consumer group subscribes to (all of them once it is Empty) from their commit. An Empty
 * group left without offsets is removed; an offset an open transaction holds does not expire, nor does its group go,
 * as Kafka's {@code cleanupExpiredOffsets}. This is an age deadline (DESIGN.md): a manual clock jump past it fires it.
 * Owned by the cluster loop.
 */
public final class OffsetStore {

    /** TxnOffsetCommit v6 (KIP-1319): GROUP_ID_NOT_FOUND and STALE_MEMBER_EPOCH reach the producer as themselves. */
    public static final short TXN_OFFSET_COMMIT_MEMBER_EPOCH_VERSION = 6;

    private final GroupCoordinatorContext context;
    private final ClassicGroupLiveness classicLiveness;

    OffsetStore(GroupCoordinatorContext context, ClassicGroupLiveness classicLiveness) {
        this.context = context;
        this.classicLiveness = classicLiveness;
    }

    static String cleanupKey(int partition) {
        return "group-expiration-" + partition;
    }

    /**
     * OffsetCommit: validates the committer and writes the offsets, which apply once replicated (a commit that fails
     * leaves the old offsets, as Kafka's). {@code done} hears NONE once replicated (at once when there was nothing to
     * write; per-partition errors are the caller's, e.g. an unknown topic), or the error for every partition:
     * UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION, FENCED_INSTANCE_ID, REBALANCE_IN_PROGRESS, GROUP_ID_NOT_FOUND (v9+),
     * INVALID_GROUP_ID, or a coordinator error, as Kafka answers. A commit from a member of a Stable or
     * PreparingRebalance classic group maintains its session, as a Heartbeat does (Kafka's
     * {@code OffsetMetadataManager.commitOffset}).
     */
    public void commit(int brokerId, short version, String groupId, String memberId, String instanceId, int generation,
                       Map<TopicPartition, CommittedOffset> commits, String clientAddress, Consumer<Errors> done) {
        context.write(brokerId, groupId, shard -> {
            ConsumerGroup consumerGroup = shard.consumerGroups.get(groupId);
            if (consumerGroup != null) {
                consumerGroup.throwIfOffsetCommitIsInvalid(memberId, generation, version);
            }
            ClassicGroup group = shard.groups.get(groupId);
            if (group == null && consumerGroup == null) {
                if (generation >= 0) {
                    if (version >= 9) {
                        throw new GroupIdNotFoundException("Group " + groupId + " does not exist.");
                    }
                    throw new IllegalGenerationException("Group " + groupId + " does not exist; rejoin the group.");
                }
                group = createSimpleGroup(shard, groupId);
            }
            if (consumerGroup == null) {
                throwIfCommitIsInvalid(group, memberId, instanceId, generation, false);
                classicLiveness.offsetCommitted(group, memberId, clientAddress);
            }
            List<SimpleRecord> records = new ArrayList<>();
            long now = context.cluster().nowMs();
            commits.forEach((tp, o) -> records.add(GroupRecords.offsetCommit(now, groupId, tp, o)));
            return new CoordinatorResult<Void>(records, null).withReplay(CoordinatorResult.Replay.WHEN_COMMITTED);
        }, (nothing, error) -> done.accept(error));
    }

    /**
     * TxnOffsetCommit, as Kafka's {@code commitTransactionalOffset}: checks the committer as an OffsetCommit (but a
     * transactional commit needs no member id from a non-empty group, and a group completing a rebalance takes it: old
     * versions carry no member), then writes the offsets in {@code producerId}'s transaction. They stay pending, not
     * committed, until its marker. {@code done} hears NONE once the write is replicated, or the error for every
     * partition: UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION (also for a generation given to a group that does not exist),
     * FENCED_INSTANCE_ID, INVALID_GROUP_ID, INVALID_PRODUCER_EPOCH, or a coordinator error. A group that does not
     * exist and is given no generation becomes a simple group, as for OffsetCommit. In a KIP-848 consumer group the
     * generation is the member's epoch; another epoch is ILLEGAL_GENERATION, as Kafka answers a producer. From
     * TxnOffsetCommit v6 (KIP-1319) those two are GROUP_ID_NOT_FOUND and STALE_MEMBER_EPOCH, as Kafka 4.4 answers them.
     */
    public void commitTransactional(int brokerId, short version, long producerId, short producerEpoch, String groupId, String memberId,
                                    String instanceId, int generation, Map<TopicPartition, CommittedOffset> commits,
                                    Consumer<Errors> done) {
        context.writeTransactional(brokerId, groupId, producerId, producerEpoch, shard -> {
            ConsumerGroup consumerGroup = shard.consumerGroups.get(groupId);
            if (consumerGroup != null) {
                try {
                    consumerGroup.throwIfTransactionalOffsetCommitIsInvalid(memberId, instanceId, generation);
                } catch (StaleMemberEpochException e) {
                    // As Kafka's validateTransactionalOffsetCommit: before v6 a producer knows generations, not member epochs.
                    if (version >= TXN_OFFSET_COMMIT_MEMBER_EPOCH_VERSION) {
                        throw e;
                    }
                    throw new IllegalGenerationException(e.getMessage());
                }
            } else {
                ClassicGroup group = shard.groups.get(groupId);
                if (group == null) {
                    if (generation >= 0) {
                        if (version >= TXN_OFFSET_COMMIT_MEMBER_EPOCH_VERSION) {
                            throw new GroupIdNotFoundException("Group " + groupId + " does not exist.");
                        }
                        throw new IllegalGenerationException("Group " + groupId + " does not exist; rejoin the group.");
                    }
                    group = createSimpleGroup(shard, groupId);
                }
                throwIfCommitIsInvalid(group, memberId, instanceId, generation, true);
            }
            long now = context.cluster().nowMs();
            List<SimpleRecord> records = new ArrayList<>();
            commits.forEach((tp, o) -> records.add(GroupRecords.offsetCommit(now, groupId, tp, o)));
            return new CoordinatorResult<Void>(records, null);
        }, (nothing, error) -> done.accept(error));
    }

    private ClassicGroup createSimpleGroup(GroupCoordinatorShard shard, String groupId) {
        ClassicGroup group = new ClassicGroup(groupId, context.cluster().timeline(), context.cluster().nowMs());
        shard.groups.put(groupId, group);
        context.cluster().timeline().record(new GroupCreated(groupId, shard.brokerId, true));
        return group;
    }

    /** Kafka's {@code ClassicGroup.validateOffsetCommit}. */
    private static void throwIfCommitIsInvalid(ClassicGroup group, String memberId, String instanceId, int generation,
                                               boolean transactional) {
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
        } else if (!transactional && !group.isInState(ClassicGroupState.EMPTY)) {
            throw new UnknownMemberIdException("Group " + group.groupId() + " has members; only they may commit.");
        }
        if (!transactional && group.isInState(ClassicGroupState.COMPLETING_REBALANCE)) {
            throw new RebalanceInProgressException("Group " + group.groupId() + " is completing a rebalance; commit after it.");
        }
    }

    /** OffsetFetch's answer for one group: the committed offsets found, and the partitions answered UNSTABLE_OFFSET_COMMIT. */
    public record Fetched(Map<TopicPartition, CommittedOffset> offsets, Set<TopicPartition> unstable) {
    }

    /**
     * OffsetFetch for one group: the committed offsets of {@code partitions}, or of all its committed partitions when
     * null; unknown partitions are absent. With {@code requireStable} (KIP-447), a partition an open transaction holds
     * an offset of is unstable instead, as Kafka's {@code fetchOffsets} answers it per partition.
     *
     * @throws GroupIdNotFoundException when the group is Dead
     */
    public Fetched fetch(int brokerId, String groupId, List<TopicPartition> partitions, boolean requireStable) {
        GroupCoordinatorShard shard = context.shardFor(brokerId, groupId);
        ClassicGroup group = shard.groups.get(groupId);
        if (group != null && group.isInState(ClassicGroupState.DEAD)) {
            throw new GroupIdNotFoundException("Group " + groupId + " is dead.");
        }
        Map<TopicPartition, CommittedOffset> all = shard.offsets(groupId);
        Map<TopicPartition, CommittedOffset> result = new LinkedHashMap<>();
        Set<TopicPartition> unstable = new LinkedHashSet<>();
        for (TopicPartition tp : partitions == null ? all.keySet() : partitions) {
            if (requireStable && shard.pending.contains(groupId, tp)) {
                unstable.add(tp);
            } else if (all.containsKey(tp)) {
                result.put(tp, all.get(tp));
            }
        }
        return new Fetched(result, unstable);
    }

    /**
     * OffsetDelete, as Kafka: an Empty group loses the offsets asked for; a non-empty group of protocol type "consumer"
     * (or a KIP-848 consumer group, with members or not) loses those of topics it does not subscribe to, and the partitions of subscribed topics answer
     * GROUP_SUBSCRIBED_TO_TOPIC. {@code done} hears an error per partition (NONE when deleted or absent) and NONE once
     * the tombstones are replicated; or null and the error of the whole request: GROUP_ID_NOT_FOUND when the group
     * does not exist, NON_EMPTY_GROUP when a non-empty group does not use the consumer protocol, or a coordinator error.
     */
    public void delete(int brokerId, String groupId, List<TopicPartition> partitions,
                       BiConsumer<Map<TopicPartition, Errors>, Errors> done) {
        context.write(brokerId, groupId, shard -> {
            ConsumerGroup consumerGroup = shard.consumerGroups.get(groupId);
            ClassicGroup group = shard.groups.get(groupId);
            Predicate<String> subscribed;
            if (consumerGroup != null) {
                // Kafka's ConsumerGroup.validateOffsetDelete: only a Dead group refuses; members may be there.
                if (consumerGroup.state() == ConsumerGroupState.DEAD) {
                    throw new GroupIdNotFoundException("Group " + groupId + " does not exist.");
                }
                subscribed = consumerGroup::isSubscribedToTopic;
            } else {
                if (group == null || group.isInState(ClassicGroupState.DEAD)) {
                    throw new GroupIdNotFoundException("Group " + groupId + " does not exist.");
                }
                if (!group.isInState(ClassicGroupState.EMPTY) && !group.usesConsumerProtocol()) {
                    throw new GroupNotEmptyException("Group " + groupId + " has members; stop them before deleting its offsets.");
                }
                subscribed = group::isSubscribedToTopic;
            }
            Map<TopicPartition, Errors> errors = new LinkedHashMap<>();
            List<SimpleRecord> tombstones = new ArrayList<>();
            long now = context.cluster().nowMs();
            for (TopicPartition tp : partitions) {
                if (subscribed.test(tp.topic())) {
                    errors.put(tp, Errors.GROUP_SUBSCRIBED_TO_TOPIC);
                    continue;
                }
                errors.put(tp, Errors.NONE);
                if (shard.offsets(groupId).containsKey(tp) || shard.pending.contains(groupId, tp)) {
                    tombstones.add(GroupRecords.offsetCommit(now, groupId, tp, null));
                }
            }
            // Replayed at once: a tombstone removes the offset, and any a transaction holds pending for it.
            return new CoordinatorResult<>(tombstones, errors);
        }, done);
    }

    /** Tombstones every offset of the group, committed or held by an open transaction, as Kafka's {@code deleteAllOffsets}. */
    void deleteAll(GroupCoordinatorShard shard, String groupId) {
        Set<TopicPartition> all = new LinkedHashSet<>(shard.offsets(groupId).keySet());
        all.addAll(shard.pending.partitions(groupId));
        long now = context.cluster().nowMs();
        if (!all.isEmpty()) {
            context.write(shard, all.stream().map(tp -> GroupRecords.offsetCommit(now, groupId, tp, null)).toList(),
                    CoordinatorResult.Replay.AT_ONCE, error -> { });
        }
        shard.removeAllOffsets(groupId);
    }

    /** Arms the partition's next expiry check, offsets.retention.check.interval.ms from now, as Kafka's shard does. */
    void scheduleCleanup(GroupCoordinatorShard shard) {
        long interval = context.configs(shard.brokerId).getLong("offsets.retention.check.interval.ms");
        context.cluster().scheduler().scheduleAfter(cleanupKey(shard.partition), interval, () -> cleanup(shard));
    }

    private void cleanup(GroupCoordinatorShard shard) {
        if (!context.isLoaded(shard)) {
            return;
        }
        for (ClassicGroup group : List.copyOf(shard.groups.values())) {
            if (expireOffsets(shard, group.groupId(), group::isSubscribedToTopic, expiryBase(group))
                    && group.isInState(ClassicGroupState.EMPTY)) {
                context.removeGroup(shard, group, "Empty with no offsets left");
            }
        }
        for (ConsumerGroup group : List.copyOf(shard.consumerGroups.values())) {
            // As Kafka's ConsumerGroup: each offset of a topic no member subscribes to ages from its commit.
            if (expireOffsets(shard, group.groupId(), group::isSubscribedToTopic, CommittedOffset::commitTimestampMs)
                    && group.state() == ConsumerGroupState.EMPTY) {
                context.removeGroup(shard, group, "Empty with no offsets left");
            }
        }
        scheduleCleanup(shard);
    }

    /**
     * Kafka's {@code cleanupExpiredOffsets}: tombstones the offsets of unsubscribed topics whose {@code expiryBase} is
     * offsets.retention.minutes old (null: none expire); true when the group has none left.
     */
    private boolean expireOffsets(GroupCoordinatorShard shard, String groupId, Predicate<String> isSubscribedToTopic,
                                  ToLongFunction<CommittedOffset> expiryBase) {
        Map<TopicPartition, CommittedOffset> offsets = shard.offsets(groupId);
        if (offsets.isEmpty()) {
            return !shard.pending.containsGroup(groupId);
        }
        if (expiryBase == null) {
            return false;
        }
        long now = context.cluster().nowMs();
        long retention = context.configs(shard.brokerId).getInt("offsets.retention.minutes") * 60_000L;
        List<TopicPartition> expired = new ArrayList<>();
        boolean allExpired = true;
        for (Map.Entry<TopicPartition, CommittedOffset> e : offsets.entrySet()) {
            // An offset an open transaction is about to replace does not expire, as Kafka's cleanupExpiredOffsets.
            if (!isSubscribedToTopic.test(e.getKey().topic()) && now - expiryBase.applyAsLong(e.getValue()) >= retention
                    && !shard.pending.contains(groupId, e.getKey())) {
                expired.add(e.getKey());
            } else {
                allExpired = false;
            }
        }
        if (!expired.isEmpty()) {
            // Replayed at once, the tombstones remove the offsets. A write that fails leaves them (its partition is
            // moving away); the next check, or the next coordinator, tries again, as Kafka's timer does.
            context.write(shard, expired.stream().map(tp -> GroupRecords.offsetCommit(now, groupId, tp, null)).toList(),
                    CoordinatorResult.Replay.AT_ONCE, error -> {
                        if (error != Errors.NONE) {
                            context.cluster().timeline().record(new OffsetsExpiryFailed(shard.partition, error.toString()));
                        }
                    });
            if (expired.stream().anyMatch(shard.offsets(groupId)::containsKey)) {
                return false;
            }
            context.cluster().timeline().record(new OffsetsExpired(groupId,
                    expired.stream().map(TopicPartition::toString).toList()));
        }
        return allExpired && !shard.pending.containsGroup(groupId);
    }

    /**
     * Kafka's {@code ClassicGroup.offsetExpirationCondition}: an Empty group's offsets age from when it became Empty,
     * a simple group's (and a Stable consumer-protocol group's, for topics it left) from each commit; null for none.
     */
    private static ToLongFunction<CommittedOffset> expiryBase(ClassicGroup group) {
        if (group.protocolType() == null) {
            return CommittedOffset::commitTimestampMs;
        }
        if (group.isInState(ClassicGroupState.EMPTY)) {
            return o -> group.stateTimestampMs();
        }
        if (group.usesConsumerProtocol() && group.subscribedTopics().isPresent() && group.isInState(ClassicGroupState.STABLE)) {
            return CommittedOffset::commitTimestampMs;
        }
        return null;
    }
}
