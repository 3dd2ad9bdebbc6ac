package dev.samsa.group.modern.consumer;

import dev.samsa.event.AssignmentDistributed;
import dev.samsa.event.GroupStateChanged;
import dev.samsa.event.Timeline;
import dev.samsa.group.Group;
import dev.samsa.group.MemberLiveness;
import dev.samsa.group.modern.Assignment;
import dev.samsa.group.modern.MemberState;
import dev.samsa.group.modern.TopicMetadata;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.StaleMemberEpochException;
import org.apache.kafka.common.errors.UnknownMemberIdException;
import org.apache.kafka.common.errors.UnsupportedVersionException;

/**
 * A consumer group of the KIP-848 protocol, as Kafka's {@code ConsumerGroup}: the group epoch (moved on by every change
 * of membership, subscription or subscribed topic), the target assignment and the epoch it was computed for, and the
 * members, each reconciling from its current assignment towards its target. It knows which member holds each partition
 * (assigned or still being revoked), so that a partition goes to a new owner only once free. Owned by the cluster loop.
 */
public final class ConsumerGroup implements Group {

    private final String groupId;
    private final Timeline timeline;
    private ConsumerGroupState state = ConsumerGroupState.EMPTY;
    private int groupEpoch;
    private int targetAssignmentEpoch;
    private final SortedMap<String, ConsumerGroupMember> members = new TreeMap<>();
    private final SortedMap<String, Assignment> targetAssignment = new TreeMap<>();
    /** The subscribed topics when the target was last computed; a difference moves the group epoch on. */
    private SortedMap<String, TopicMetadata> subscribedTopics = new TreeMap<>();
    /** Topic id, partition -> epoch of the member that holds it. */
    private final Map<Uuid, Map<Integer, Integer>> partitionEpochs = new HashMap<>();
    /** The members that speak the classic protocol (JoinGroup/SyncGroup/Heartbeat), by member id: a mixed group. */
    final Map<String, ClassicProtocolMembers.ClassicMember> classicMembers = new HashMap<>();
    /** Wall-time liveness of each member, for the rule of a manual-clock jump. */
    final Map<String, MemberLiveness> liveness = new HashMap<>();

    public ConsumerGroup(String groupId, Timeline timeline) {
        this.groupId = groupId;
        this.timeline = timeline;
    }

    @Override
    public String groupId() {
        return groupId;
    }

    @Override
    public Type type() {
        return Type.CONSUMER;
    }

    @Override
    public String stateName() {
        return state.toString();
    }

    @Override
    public int numMembers() {
        return members.size();
    }

    public ConsumerGroupState state() {
        return state;
    }

    public int groupEpoch() {
        return groupEpoch;
    }

    public int targetAssignmentEpoch() {
        return targetAssignmentEpoch;
    }

    public Collection<ConsumerGroupMember> members() {
        return members.values();
    }

    public ConsumerGroupMember memberOrNull(String memberId) {
        return members.get(memberId);
    }

    /** The member with this {@code group.instance.id}, or null. */
    public ConsumerGroupMember staticMemberOrNull(String instanceId) {
        return members.values().stream().filter(m -> instanceId.equals(m.instanceId())).findFirst().orElse(null);
    }

    public Assignment targetAssignment(String memberId) {
        return targetAssignment.getOrDefault(memberId, Assignment.EMPTY);
    }

    SortedMap<String, Assignment> targetAssignment() {
        return targetAssignment;
    }

    SortedMap<String, TopicMetadata> subscribedTopics() {
        return subscribedTopics;
    }

    /**
     * Kafka's {@code ConsumerGroup.validateOffsetCommit}: epoch -1 without a member commits for an empty group (admin,
     * assign()); a member commits only in its current epoch.
     *
     * @throws UnknownMemberIdException when the member is not in the group
     * @throws StaleMemberEpochException when the epoch is not the member's
     * @throws UnsupportedVersionException for OffsetCommit below v9 from a consumer-protocol member
     */
    public void throwIfOffsetCommitIsInvalid(String memberId, int memberEpoch, short apiVersion) {
        if (memberEpoch < 0 && members.isEmpty()) {
            return;
        }
        ConsumerGroupMember member = members.get(memberId);
        if (member == null) {
            throw new UnknownMemberIdException("Member " + memberId + " is not a member of group " + groupId + ".");
        }
        if (apiVersion < 9) {
            throw new UnsupportedVersionException("OffsetCommit version 9 or above must be used by members using the "
                    + "consumer group protocol");
        }
        if (memberEpoch != member.memberEpoch()) {
            throw new StaleMemberEpochException("The member epoch " + memberEpoch + " is not the current epoch "
                    + member.memberEpoch() + " of member " + memberId + ".");
        }
    }

    /**
     * Kafka's {@code ConsumerGroup.validateOffsetCommit} for TxnOffsetCommit: as for OffsetCommit, except that a
     * commit naming no member, epoch or instance is accepted (old versions carry none), and any version may be used.
     *
     * @throws UnknownMemberIdException when the member is not in the group
     * @throws StaleMemberEpochException when the epoch is not the member's
     */
    public void throwIfTransactionalOffsetCommitIsInvalid(String memberId, String groupInstanceId, int memberEpoch) {
        if (memberEpoch < 0 && members.isEmpty()) {
            return;
        }
        if (memberEpoch < 0 && memberId.isEmpty() && groupInstanceId == null) {
            return;
        }
        throwIfNotCurrentMember(memberId, memberEpoch);
    }

    private void throwIfNotCurrentMember(String memberId, int memberEpoch) {
        ConsumerGroupMember member = members.get(memberId);
        if (member == null) {
            throw new UnknownMemberIdException("Member " + memberId + " is not a member of group " + groupId + ".");
        }
        if (memberEpoch != member.memberEpoch()) {
            throw new StaleMemberEpochException("The member epoch " + memberEpoch + " is not the current epoch "
                    + member.memberEpoch() + " of member " + memberId + ".");
        }
    }

    /**
     * Kafka's {@code ConsumerGroup.validateOffsetFetch}: without member id and epoch (admin, old clients) anyone may
     * fetch; a member fetches only in its current epoch.
     *
     * @throws UnknownMemberIdException when the member is not in the group
     * @throws StaleMemberEpochException when the epoch is not the member's
     */
    public void throwIfOffsetFetchIsInvalid(String memberId, int memberEpoch) {
        if (memberId == null && memberEpoch < 0) {
            return;
        }
        throwIfNotCurrentMember(memberId, memberEpoch);
    }

    /** The epoch of the member holding the partition, assigned or pending revocation; -1 when it is free. */
    /** Whether the member uses the classic protocol (it joined with JoinGroup), as Kafka's {@code useClassicProtocol}. */
    public boolean usesClassicProtocol(String memberId) {
        return classicMembers.containsKey(memberId);
    }

    /**
     * Kafka's {@code waitingOnUnreleasedPartition}: a member waiting for partitions of its target that another member
     * still holds; a classic member need not rejoin until they are free.
     */
    boolean waitingOnUnreleasedPartition(ConsumerGroupMember member) {
        if (member.state() != MemberState.UNRELEASED_PARTITIONS) {
            return false;
        }
        Assignment target = targetAssignment(member.memberId());
        for (Map.Entry<Uuid, java.util.SortedSet<Integer>> e : target.partitions().entrySet()) {
            for (int partition : e.getValue()) {
                if (!member.assignedPartitions().partitions(e.getKey()).contains(partition)
                        && currentPartitionEpoch(e.getKey(), partition) != -1) {
                    return true;
                }
            }
        }
        return false;
    }

    int currentPartitionEpoch(Uuid topicId, int partition) {
        return partitionEpochs.getOrDefault(topicId, Map.of()).getOrDefault(partition, -1);
    }

    /** Adds or replaces a member, moving the partitions it holds with it. */
    void putMember(ConsumerGroupMember member) {
        ConsumerGroupMember old = members.put(member.memberId(), member);
        if (old != null) {
            release(old);
        }
        hold(member.assignedPartitions(), member.memberEpoch(), member.memberId());
        hold(member.partitionsPendingRevocation(), member.memberEpoch(), member.memberId());
    }

    /** Removes a member and its target; its partitions are free at once (a fenced member owns nothing). */
    void removeMember(String memberId) {
        ConsumerGroupMember old = members.remove(memberId);
        targetAssignment.remove(memberId);
        liveness.remove(memberId);
        classicMembers.remove(memberId);
        if (old != null) {
            release(old);
        }
    }

    private void hold(Assignment partitions, int epoch, String memberId) {
        partitions.partitions().forEach((topic, ps) -> {
            Map<Integer, Integer> epochs = partitionEpochs.computeIfAbsent(topic, t -> new HashMap<>());
            for (int p : ps) {
                Integer previous = epochs.putIfAbsent(p, epoch);
                if (previous != null) {
                    throw new IllegalStateException("Partition " + topic + "-" + p + " of group " + groupId
                            + " is already held (epoch " + previous + ") when member " + memberId + " takes it");
                }
            }
        });
    }

    private void release(ConsumerGroupMember member) {
        for (Assignment a : List.of(member.assignedPartitions(), member.partitionsPendingRevocation())) {
            a.partitions().forEach((topic, ps) -> {
                Map<Integer, Integer> epochs = partitionEpochs.get(topic);
                if (epochs != null) {
                    ps.forEach(epochs::remove);
                    if (epochs.isEmpty()) {
                        partitionEpochs.remove(topic);
                    }
                }
            });
        }
    }

    /**
     * Kafka's {@code isSubscribedToTopic}: a member subscribes to the topic by name or by a regular expression that
     * matches it. The offsets of such a topic never expire.
     */
    public boolean isSubscribedToTopic(String topic) {
        return members.values().stream().anyMatch(m -> m.subscribedTopicNames().contains(topic)
                || m.subscribedTopicRegex() != null && Pattern.compile(m.subscribedTopicRegex()).matcher(topic).matches());
    }

    void setGroupEpoch(int epoch) {
        this.groupEpoch = epoch;
    }

    void setTargetAssignment(int epoch, Map<String, Assignment> target) {
        targetAssignmentEpoch = epoch;
        targetAssignment.clear();
        targetAssignment.putAll(target);
    }

    void setSubscribedTopics(SortedMap<String, TopicMetadata> topics) {
        subscribedTopics = new TreeMap<>(topics);
    }

    /**
     * Reads the state off the group, as Kafka's {@code maybeUpdateGroupState}, and records a change on the timeline.
     *
     * @throws IllegalStateException when the group is Dead
     */
    void updateState() {
        ConsumerGroupState next;
        if (members.isEmpty()) {
            next = ConsumerGroupState.EMPTY;
        } else if (groupEpoch > targetAssignmentEpoch) {
            next = ConsumerGroupState.ASSIGNING;
        } else if (members.values().stream().allMatch(m -> m.isReconciledTo(targetAssignmentEpoch))) {
            next = ConsumerGroupState.STABLE;
        } else {
            next = ConsumerGroupState.RECONCILING;
        }
        if (next != state) {
            transitionTo(next);
        }
    }

    /** The only way to change state: asserts the move against the table and records it. */
    public void transitionTo(ConsumerGroupState next) {
        if (!next.validPreviousStates().contains(state)) {
            throw new IllegalStateException("Group " + groupId + " cannot move from " + state + " to " + next);
        }
        ConsumerGroupState previous = state;
        state = next;
        timeline.record(new GroupStateChanged(groupId, previous.toString(), next.toString(), groupEpoch, null,
                List.copyOf(members.keySet())));
        if (next == ConsumerGroupState.STABLE) {
            recordAssignment();
        }
    }

    /** The timeline's record of who owns what at this group epoch, by topic name. */
    private void recordAssignment() {
        Map<Uuid, String> names = new HashMap<>();
        subscribedTopics.values().forEach(t -> names.put(t.id(), t.name()));
        Map<String, List<String>> owned = new TreeMap<>();
        for (ConsumerGroupMember m : members.values()) {
            List<String> partitions = new ArrayList<>();
            m.assignedPartitions().partitions().forEach((id, ps) ->
                    ps.forEach(p -> partitions.add(names.getOrDefault(id, id.toString()) + "-" + p)));
            owned.put(m.memberId() + (m.instanceId() == null ? "" : "(" + m.instanceId() + ")"), partitions.stream().sorted().toList());
        }
        timeline.record(new AssignmentDistributed(groupId, groupEpoch, owned));
    }
}
