package dev.samsa;

import dev.samsa.cluster.ClusterState;
import dev.samsa.cluster.Partition;
import dev.samsa.group.CommittedOffset;
import dev.samsa.group.GroupCoordinator;
import dev.samsa.group.classic.ClassicGroup;
import dev.samsa.group.classic.ClassicGroupMember;
import dev.samsa.group.classic.ClassicGroupState;
import dev.samsa.group.modern.Assignment;
import dev.samsa.group.modern.consumer.ConsumerGroupMember;
import dev.samsa.cluster.Topic;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.SortedSet;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.TopicPartition;

/**
 * A snapshot of one consumer group, taken on the cluster loop by {@link KafkaCluster#group(String)}: its state,
 * generation, protocol, leader, members with their assignment, committed offsets and lag (high watermark minus
 * committed offset), and the partitions whose offsets open transactions hold, not yet committed. Immutable, except {@link #expireMember} which acts on the live group.
 */
public final class ConsumerGroup {

    /**
     * One member: ids, client, host, and its partitions by topic (decoded when the protocol type is "consumer"). In a
     * consumer-protocol group (KIP-848) also its member epoch and its target assignment, which it is reconciling
     * towards; a classic member shows the group's generation and its assignment as target.
     */
    public record Member(String memberId, String groupInstanceId, String clientId, String host,
                         Map<String, SortedSet<Integer>> assignment, int memberEpoch,
                         Map<String, SortedSet<Integer>> targetAssignment) {
    }

    private final String groupId;
    private final String groupType;
    private final GroupState state;
    private final int generation;
    private final String protocolType;
    private final String protocol;
    private final String leader;
    private final List<Member> members;
    private final Map<GroupPartition, Long> committed;
    private final Map<GroupPartition, String> metadata;
    private final Map<GroupPartition, Long> lag;
    private final SortedSet<GroupPartition> pendingTransactionalOffsets;
    private final Consumer<String> expire;

    private ConsumerGroup(String groupId, String groupType, GroupState state, int generation, String protocolType, String protocol, String leader,
                          List<Member> members, Map<GroupPartition, Long> committed, Map<GroupPartition, String> metadata,
                          Map<GroupPartition, Long> lag, SortedSet<GroupPartition> pendingTransactionalOffsets,
                          Consumer<String> expire) {
        this.groupId = groupId;
        this.groupType = groupType;
        this.state = state;
        this.generation = generation;
        this.protocolType = protocolType;
        this.protocol = protocol;
        this.leader = leader;
        this.members = List.copyOf(members);
        this.committed = java.util.Collections.unmodifiableMap(committed);
        this.metadata = java.util.Collections.unmodifiableMap(metadata);
        this.lag = java.util.Collections.unmodifiableMap(lag);
        this.pendingTransactionalOffsets = java.util.Collections.unmodifiableSortedSet(pendingTransactionalOffsets);
        this.expire = expire;
    }

    /** Runs on the cluster loop. */
    static ConsumerGroup snapshot(String groupId, GroupCoordinator coordinator, ClusterState state) {
        Consumer<String> expire = memberId -> state.loop().call(() -> {
            coordinator.expireMember(groupId, memberId);
            return null;
        });
        ClassicGroup g = coordinator.groupOrNull(groupId);
        Map<GroupPartition, Long> committed = new TreeMap<>();
        Map<GroupPartition, String> metadata = new TreeMap<>();
        Map<GroupPartition, Long> lag = new TreeMap<>();
        for (Map.Entry<TopicPartition, CommittedOffset> e : coordinator.committed(groupId).entrySet()) {
            GroupPartition gp = new GroupPartition(e.getKey().topic(), e.getKey().partition());
            committed.put(gp, e.getValue().offset());
            metadata.put(gp, e.getValue().metadata());
            Partition p = state.metadata().partition(e.getKey());
            if (p != null) {
                lag.put(gp, Math.max(0, p.highWatermark() - e.getValue().offset()));
            }
        }
        SortedSet<GroupPartition> pending = new TreeSet<>();
        coordinator.pendingTransactionalOffsets(groupId).forEach(tp -> pending.add(new GroupPartition(tp.topic(), tp.partition())));
        dev.samsa.group.modern.consumer.ConsumerGroup modern = coordinator.consumerGroupOrNull(groupId);
        if (modern != null) {
            List<Member> members = new ArrayList<>();
            for (ConsumerGroupMember m : modern.members()) {
                members.add(new Member(m.memberId(), m.instanceId(), m.clientId(), m.clientHost(),
                        byName(m.assignedPartitions(), state), m.memberEpoch(), byName(modern.targetAssignment(m.memberId()), state)));
            }
            return new ConsumerGroup(groupId, "consumer", GroupState.fromKafkaName(modern.stateName()), modern.groupEpoch(),
                    "consumer", null, null, members, committed, metadata, lag, pending, expire);
        }
        if (g == null || g.isInState(ClassicGroupState.DEAD)) {
            return new ConsumerGroup(groupId, "classic", GroupState.DEAD, -1, null, null, null, List.of(), committed, metadata, lag,
                    pending, expire);
        }
        List<Member> members = new ArrayList<>();
        for (ClassicGroupMember m : g.allMembers()) {
            Map<String, SortedSet<Integer>> assignment = decode(g.protocolType(), m.assignment());
            members.add(new Member(m.memberId(), m.groupInstanceId(), m.clientId(), m.clientHost(), assignment,
                    g.generationId(), assignment));
        }
        return new ConsumerGroup(groupId, "classic", GroupState.fromKafkaName(g.state().toString()), g.generationId(), g.protocolType(),
                g.protocolName(), g.leaderOrNull(), members, committed, metadata, lag, pending, expire);
    }

    private static Map<String, SortedSet<Integer>> byName(Assignment assignment, ClusterState state) {
        Map<String, SortedSet<Integer>> byTopic = new TreeMap<>();
        assignment.partitions().forEach((id, ps) -> {
            Topic t = state.metadata().topic(id);
            byTopic.put(t == null ? id.toString() : t.name(), ps);
        });
        return java.util.Collections.unmodifiableMap(byTopic);
    }

    private static Map<String, SortedSet<Integer>> decode(String protocolType, byte[] assignment) {
        Map<String, SortedSet<Integer>> byTopic = new TreeMap<>();
        if (!"consumer".equals(protocolType) || assignment == null || assignment.length == 0) {
            return byTopic;
        }
        try {
            for (TopicPartition tp : ConsumerProtocol.deserializeAssignment(ByteBuffer.wrap(assignment)).partitions()) {
                byTopic.computeIfAbsent(tp.topic(), t -> new TreeSet<>()).add(tp.partition());
            }
        } catch (RuntimeException e) {
            // The group leader's bytes, as a client sent them: what does not parse shows as no assignment.
            return Map.of();
        }
        byTopic.replaceAll((t, s) -> java.util.Collections.unmodifiableSortedSet(s));
        return java.util.Collections.unmodifiableMap(byTopic);
    }

    public String groupId() {
        return groupId;
    }

    /** The protocol the group runs, as Kafka's group type: "classic" (JoinGroup/SyncGroup) or "consumer" (KIP-848). */
    public String groupType() {
        return groupType;
    }

    public GroupState state() {
        return state;
    }

    /** The generation of a classic group; the group epoch of a consumer group. */
    public int generation() {
        return generation;
    }

    /** "consumer" for KafkaConsumer groups; null for a group that only commits offsets. */
    public String protocolType() {
        return protocolType;
    }

    /** The assignor chosen for this generation ("range", "cooperative-sticky"), or null. */
    public String protocol() {
        return protocol;
    }

    public String leader() {
        return leader;
    }

    public List<Member> members() {
        return members;
    }

    /** Every partition assigned to some member, in order. */
    public SortedSet<GroupPartition> assignedPartitions() {
        SortedSet<GroupPartition> all = new TreeSet<>();
        members.forEach(m -> m.assignment().forEach((t, ps) -> ps.forEach(p -> all.add(new GroupPartition(t, p)))));
        return all;
    }

    /** Committed offsets: the next offset the group will read, per partition. */
    public Map<GroupPartition, Long> committed() {
        return committed;
    }

    public Map<GroupPartition, String> committedMetadata() {
        return metadata;
    }

    /**
     * The partitions that open transactions have committed offsets of (TxnOffsetCommit, {@code sendOffsetsToTransaction}):
     * not in {@link #committed()} until the transaction commits, gone if it aborts; while a partition is here, a
     * consumer's {@code committed()} waits (UNSTABLE_OFFSET_COMMIT).
     */
    public SortedSet<GroupPartition> pendingTransactionalOffsets() {
        return pendingTransactionalOffsets;
    }

    /** High watermark minus committed offset, per committed partition. */
    public Map<GroupPartition, Long> lag() {
        return lag;
    }

    /**
     * Makes a member's session expire now, as if it had stopped heartbeating: it is removed and the group rebalances.
     *
     * @throws IllegalArgumentException when no such member is in the group
     */
    public void expireMember(String memberId) {
        expire.accept(memberId);
    }

    @Override
    public String toString() {
        return "ConsumerGroup[" + groupId + " " + groupType + " " + state + " generation=" + generation + " protocol=" + protocol + " leader=" + leader
                + " members=" + members + " committed=" + committed + "]";
    }
}
