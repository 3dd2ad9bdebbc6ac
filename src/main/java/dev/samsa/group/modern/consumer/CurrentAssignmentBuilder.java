package dev.samsa.group.modern.consumer;

import dev.samsa.group.modern.Assignment;
import dev.samsa.group.modern.MemberState;
import java.util.HashSet;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.Uuid;

/**
 * Moves one member from its current assignment towards the group's target, as Kafka's
 * {@code CurrentAssignmentBuilder}, so that no partition is ever owned by two members: partitions the member loses
 * are revoked first (it stays in its epoch, UNREVOKED_PARTITIONS, until its heartbeat no longer lists them as owned);
 * partitions it gains are given only once no other member holds them (until then UNRELEASED_PARTITIONS). Stateless.
 */
final class CurrentAssignmentBuilder {

    /** The epoch of the member that holds a partition, or -1 when it is free. */
    interface PartitionEpochs {
        int of(Uuid topicId, int partition);
    }

    private CurrentAssignmentBuilder() {
    }

    /**
     * @param owned what the member's heartbeat says it owns, or null when the heartbeat did not say
     */
    static ConsumerGroupMember reconcile(ConsumerGroupMember member, int targetEpoch, Assignment target,
                                         PartitionEpochs partitionEpochs, Assignment owned) {
        return switch (member.state()) {
            case STABLE -> member.memberEpoch() != targetEpoch
                    ? next(member, member.memberEpoch(), targetEpoch, target, partitionEpochs, owned)
                    : member;
            case UNREVOKED_PARTITIONS -> ownsAny(owned, member.partitionsPendingRevocation())
                    ? member
                    // Revoked: the member may move to the next epoch and on towards the latest target.
                    : next(member, member.memberEpoch() + 1, targetEpoch, target, partitionEpochs, owned);
            case UNRELEASED_PARTITIONS -> next(member, member.memberEpoch(), targetEpoch, target, partitionEpochs, owned);
        };
    }

    private static ConsumerGroupMember next(ConsumerGroupMember member, int memberEpoch, int targetEpoch, Assignment target,
                                            PartitionEpochs partitionEpochs, Assignment owned) {
        boolean unreleased = false;
        TreeMap<Uuid, SortedSet<Integer>> assigned = new TreeMap<>();
        TreeMap<Uuid, SortedSet<Integer>> revoking = new TreeMap<>();
        TreeMap<Uuid, SortedSet<Integer>> gaining = new TreeMap<>();
        Set<Uuid> topics = new HashSet<>(target.partitions().keySet());
        topics.addAll(member.assignedPartitions().partitions().keySet());
        for (Uuid topic : topics) {
            SortedSet<Integer> targetPartitions = target.partitions(topic);
            SortedSet<Integer> current = member.assignedPartitions().partitions(topic);
            SortedSet<Integer> kept = new TreeSet<>(current);
            kept.retainAll(targetPartitions);
            SortedSet<Integer> lost = new TreeSet<>(current);
            lost.removeAll(kept);
            SortedSet<Integer> gained = new TreeSet<>(targetPartitions);
            gained.removeAll(kept);
            unreleased |= gained.removeIf(p -> partitionEpochs.of(topic, p) != -1);
            assigned.put(topic, kept);
            revoking.put(topic, lost);
            gaining.put(topic, gained);
        }
        Assignment pendingRevocation = new Assignment(revoking);
        if (!pendingRevocation.isEmpty() && ownsAny(owned, pendingRevocation)) {
            return member.withReconciliation(MemberState.UNREVOKED_PARTITIONS, memberEpoch, new Assignment(assigned),
                    pendingRevocation);
        }
        gaining.forEach((topic, ps) -> assigned.get(topic).addAll(ps));
        MemberState state = unreleased ? MemberState.UNRELEASED_PARTITIONS : MemberState.STABLE;
        return member.withReconciliation(state, targetEpoch, new Assignment(assigned), Assignment.EMPTY);
    }

    /** A heartbeat that does not say what it owns may still own them all. */
    private static boolean ownsAny(Assignment owned, Assignment partitions) {
        if (owned == null) {
            return true;
        }
        for (var e : owned.partitions().entrySet()) {
            for (int p : e.getValue()) {
                if (partitions.partitions(e.getKey()).contains(p)) {
                    return true;
                }
            }
        }
        return false;
    }
}
