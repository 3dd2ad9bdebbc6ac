package dev.samsa.group.modern.consumer;

import dev.samsa.event.Timeline;
import dev.samsa.group.classic.ClassicGroup;
import dev.samsa.group.classic.ClassicGroupLiveness;
import dev.samsa.group.classic.ClassicGroupMember;
import dev.samsa.group.classic.JoinRequest;
import dev.samsa.group.classic.JoinResult;
import dev.samsa.group.classic.Protocol;
import dev.samsa.group.classic.SyncResult;
import dev.samsa.group.modern.Assignment;
import dev.samsa.group.modern.MemberState;
import dev.samsa.group.modern.TopicMetadata;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.IllegalGenerationException;
import org.apache.kafka.common.errors.InconsistentGroupProtocolException;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.UnknownMemberIdException;
import org.apache.kafka.common.protocol.Errors;

/**
 * Classic members (JoinGroup/SyncGroup/Heartbeat/LeaveGroup) of a consumer group that runs the KIP-848 protocol, as
 * Kafka 4.1's {@code classicGroupJoinToConsumerGroup} and its siblings: the JoinGroup's subscription (the embedded
 * consumer protocol) is the member's heartbeat, so the server-side assignor gives it partitions and it reconciles as any
 * member; its generation is its member epoch; SyncGroup answers its assigned partitions, no leader assigns; Heartbeat
 * answers REBALANCE_IN_PROGRESS when the member must rejoin to move on (a new group epoch, partitions to revoke, or
 * partitions now free to take). Owned by the cluster loop.
 */
public final class ClassicProtocolMembers {

    private final ConsumerGroupContext ctx;
    private final ConsumerGroups consumer;

    public ClassicProtocolMembers(ConsumerGroupContext ctx, ConsumerGroups consumer) {
        this.ctx = ctx;
        this.consumer = consumer;
    }

    /**
     * JoinGroup of a classic member to a non-empty consumer group; the answer (after the group's record is
     * replicated) goes to {@code respond}.
     *
     * @throws org.apache.kafka.common.errors.ApiException INCONSISTENT_GROUP_PROTOCOL, GROUP_MAX_SIZE_REACHED,
     *         UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID, UNRELEASED_INSTANCE_ID, as Kafka answers
     */
    public void join(ConsumerGroup group, JoinRequest req, JoinResponder respond) {
        throwIfProtocolsAreNotSupported(group, req);
        String memberId = req.memberId().isEmpty() ? Uuid.randomUuid().toString() : req.memberId();
        if (req.memberId().isEmpty() && req.groupInstanceId() == null && req.requireKnownMemberId()) {
            respond.accept(JoinResult.error(Errors.MEMBER_ID_REQUIRED, memberId), null);
            return;
        }
        // As Kafka's getOrMaybeSubscribeDynamicConsumerGroupMember: an unknown member id (the one MEMBER_ID_REQUIRED
        // gave) joins as a new member.
        ConsumerGroupMember existing = group.memberOrNull(memberId);
        ConsumerPartitionAssignor.Subscription subscription = ConsumerProtocol.deserializeSubscription(
                ByteBuffer.wrap(req.protocols().get(0).metadata()));
        // A join is the member's heartbeat: a new member joins with epoch 0 and owns nothing yet; a known one
        // reports what it owns in its current epoch.
        int epoch = existing == null ? HeartbeatRequest.JOIN : existing.memberEpoch();
        Assignment owned = existing == null ? Assignment.EMPTY : byTopicId(subscription.ownedPartitions());
        HeartbeatRequest heartbeat = new HeartbeatRequest(group.groupId(), memberId, epoch, req.groupInstanceId(),
                subscription.rackId().orElse(null), req.rebalanceTimeoutMs(), List.copyOf(subscription.topics()), null,
                null, owned, req.clientId(), req.clientHost());
        Protocol first = req.protocols().get(0);
        // Known before the heartbeat, whose session timer is the classic member's own session timeout.
        ClassicMember previous = group.classicMembers.put(memberId, new ClassicMember(first.name(),
                ConsumerProtocol.deserializeVersion(ByteBuffer.wrap(first.metadata())), req.sessionTimeoutMs(),
                names(req.protocols())));
        HeartbeatResult result;
        try {
            result = consumer.heartbeat(group, heartbeat);
        } catch (RuntimeException e) {
            if (previous == null) {
                group.classicMembers.remove(memberId);
            } else {
                group.classicMembers.put(memberId, previous);
            }
            throw e;
        }
        respond.accept(new JoinResult(Errors.NONE, result.memberId(), result.memberEpoch(), ConsumerProtocol.PROTOCOL_TYPE,
                first.name(), "", false, List.of()), result.memberId());
    }

    /**
     * A Stable classic group whose members use the consumer protocol becomes a consumer group when a consumer-protocol
     * member joins it (group.consumer.migration.policy upgrade or bidirectional), as Kafka's {@code fromClassicGroup}:
     * the group epoch is the generation, each member keeps its assignment (also its target) in that epoch and stays a
     * classic member, its session its own; the join that follows moves the epoch on and the classic members rejoin.
     */
    public ConsumerGroup upgrade(ClassicGroup classic, Timeline timeline) {
        ConsumerGroup group = new ConsumerGroup(classic.groupId(), timeline);
        int generation = classic.generationId();
        group.setGroupEpoch(generation);
        Map<String, Assignment> target = new TreeMap<>();
        for (ClassicGroupMember m : classic.allMembers()) {
            byte[] metadata = m.metadata(classic.protocolName());
            ConsumerPartitionAssignor.Subscription subscription = ConsumerProtocol.deserializeSubscription(ByteBuffer.wrap(metadata));
            byte[] bytes = m.assignment();
            Assignment assigned = bytes == null || bytes.length == 0 ? Assignment.EMPTY
                    : byTopicId(ConsumerProtocol.deserializeAssignment(ByteBuffer.wrap(bytes)).partitions());
            group.classicMembers.put(m.memberId(), new ClassicMember(classic.protocolName(),
                    ConsumerProtocol.deserializeVersion(ByteBuffer.wrap(metadata)), m.sessionTimeoutMs(), m.protocolNames()));
            group.putMember(new ConsumerGroupMember(m.memberId(), m.groupInstanceId(), subscription.rackId().orElse(null),
                    m.clientId(), m.clientHost(), subscription.topics().stream().sorted().toList(), null, null,
                    m.rebalanceTimeoutMs(), generation, generation, MemberState.STABLE, assigned, Assignment.EMPTY));
            target.put(m.memberId(), assigned);
            consumer.heardFrom(group, m.memberId(), m.clientHost());
        }
        group.setTargetAssignment(generation, target);
        group.updateState();
        return group;
    }

    /** Where a join's answer goes: the result, and the member to count as answered once the group's record is written. */
    public interface JoinResponder {
        void accept(JoinResult result, String answeredMemberId);
    }

    /**
     * SyncGroup of a classic member: its assigned partitions, in the consumer protocol version it sent.
     *
     * @throws org.apache.kafka.common.errors.ApiException UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID, ILLEGAL_GENERATION,
     *         INCONSISTENT_GROUP_PROTOCOL, REBALANCE_IN_PROGRESS, as Kafka's {@code classicGroupSyncToConsumerGroup}
     */
    public SyncResult sync(ConsumerGroup group, String memberId, String instanceId, int generation, String protocolType,
                           String protocolName, String connection) {
        ConsumerGroupMember member = classicMember(group, memberId, instanceId);
        throwIfGenerationIsNotTheMemberEpoch(member, generation);
        ClassicMember classic = group.classicMembers.get(member.memberId());
        if (protocolType != null && !ConsumerProtocol.PROTOCOL_TYPE.equals(protocolType)) {
            throw new InconsistentGroupProtocolException("The protocol type " + protocolType + " is not the group's "
                    + ConsumerProtocol.PROTOCOL_TYPE + ".");
        }
        if (protocolName != null && !classic.protocolName().equals(protocolName)) {
            throw new InconsistentGroupProtocolException("The protocol name " + protocolName + " is not "
                    + classic.protocolName() + ", the one the join answered.");
        }
        if (group.groupEpoch() > member.memberEpoch() && member.state() != MemberState.UNREVOKED_PARTITIONS) {
            throw new RebalanceInProgressException("A new rebalance is triggered in group " + group.groupId()
                    + "; member " + member.memberId() + " should rejoin to catch up.");
        }
        consumer.heardFrom(group, member.memberId(), connection);
        byte[] assignment = ConsumerProtocol.serializeAssignment(new ConsumerPartitionAssignor.Assignment(
                byName(member.assignedPartitions())), classic.subscriptionVersion()).array();
        return new SyncResult(Errors.NONE, ConsumerProtocol.PROTOCOL_TYPE, classic.protocolName(), assignment);
    }

    /**
     * Heartbeat of a classic member: keeps its session.
     *
     * @throws org.apache.kafka.common.errors.ApiException UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID, ILLEGAL_GENERATION,
     *         and REBALANCE_IN_PROGRESS when it must rejoin, as Kafka's {@code classicGroupHeartbeatToConsumerGroup}
     */
    public void heartbeat(ConsumerGroup group, String memberId, String instanceId, int generation, String connection) {
        ConsumerGroupMember member = classicMember(group, memberId, instanceId);
        throwIfGenerationIsNotTheMemberEpoch(member, generation);
        consumer.heardFrom(group, member.memberId(), connection);
        if (member.memberEpoch() < group.groupEpoch() || member.state() == MemberState.UNREVOKED_PARTITIONS
                || member.state() == MemberState.UNRELEASED_PARTITIONS && !group.waitingOnUnreleasedPartition(member)) {
            throw new RebalanceInProgressException("Member " + member.memberId() + " of group " + group.groupId()
                    + " must rejoin to reconcile its assignment.");
        }
    }

    /** LeaveGroup of classic members, as Kafka's {@code classicGroupLeaveToConsumerGroup}: an error per member. */
    public List<Errors> leave(ConsumerGroup group, List<ClassicGroupLiveness.Leaving> leaving) {
        List<Errors> errors = new ArrayList<>();
        for (ClassicGroupLiveness.Leaving l : leaving) {
            try {
                ConsumerGroupMember member = l.groupInstanceId() == null ? group.memberOrNull(l.memberId())
                        : staticMember(group, l.memberId(), l.groupInstanceId());
                if (member == null) {
                    throw new UnknownMemberIdException("Member " + l.memberId() + " is not a member of group " + group.groupId() + ".");
                }
                consumer.removeMember(group, member.memberId(), "left the group"
                        + (l.reason() == null ? "" : ": " + l.reason()));
                errors.add(Errors.NONE);
            } catch (UnknownMemberIdException | FencedInstanceIdException e) {
                errors.add(Errors.forException(e));
            }
        }
        return errors;
    }

    private void throwIfProtocolsAreNotSupported(ConsumerGroup group, JoinRequest req) {
        Set<String> names = names(req.protocols());
        if (!ConsumerProtocol.PROTOCOL_TYPE.equals(req.protocolType()) || names.isEmpty()) {
            throw new InconsistentGroupProtocolException("Member " + req.memberId() + "'s protocols are not supported.");
        }
        // As Kafka's supportsClassicProtocols: one protocol every classic member of the group supports.
        for (Map.Entry<String, ClassicMember> e : group.classicMembers.entrySet()) {
            if (!e.getKey().equals(req.memberId())) {
                names.retainAll(e.getValue().protocols());
            }
        }
        if (names.isEmpty()) {
            throw new InconsistentGroupProtocolException("Member " + req.memberId() + "'s protocols are not supported.");
        }
    }

    private static Set<String> names(List<Protocol> protocols) {
        Set<String> names = new HashSet<>();
        protocols.forEach(p -> names.add(p.name()));
        return names;
    }

    /** Kafka's {@code validateConsumerGroupMember} and {@code throwIfMemberDoesNotUseClassicProtocol}. */
    private static ConsumerGroupMember classicMember(ConsumerGroup group, String memberId, String instanceId) {
        ConsumerGroupMember member = instanceId == null ? group.memberOrNull(memberId) : staticMember(group, memberId, instanceId);
        if (member == null) {
            throw new UnknownMemberIdException("Member " + memberId + " is not a member of group " + group.groupId() + ".");
        }
        if (!group.classicMembers.containsKey(member.memberId())) {
            throw new UnknownMemberIdException("Member " + member.memberId() + " does not use the classic protocol.");
        }
        return member;
    }

    private static ConsumerGroupMember staticMember(ConsumerGroup group, String memberId, String instanceId) {
        ConsumerGroupMember member = group.staticMemberOrNull(instanceId);
        if (member == null) {
            throw new UnknownMemberIdException("Member with instance id " + instanceId + " is not a member of group "
                    + group.groupId() + ".");
        }
        if (!member.memberId().equals(memberId)) {
            throw new FencedInstanceIdException("Static member " + memberId + " with instance id " + instanceId
                    + " is fenced by member " + member.memberId() + ".");
        }
        return member;
    }

    private static void throwIfGenerationIsNotTheMemberEpoch(ConsumerGroupMember member, int generation) {
        if (member.memberEpoch() != generation) {
            throw new IllegalGenerationException("The request generation id " + generation + " is not equal to the member epoch "
                    + member.memberEpoch() + " of member " + member.memberId() + ".");
        }
    }

    private Assignment byTopicId(List<TopicPartition> partitions) {
        Map<String, TopicMetadata> topics = ctx.topics();
        Map<Uuid, Set<Integer>> byId = new HashMap<>();
        for (TopicPartition tp : partitions) {
            TopicMetadata t = topics.get(tp.topic());
            if (t != null) {
                byId.computeIfAbsent(t.id(), id -> new HashSet<>()).add(tp.partition());
            }
        }
        return Assignment.of(byId);
    }

    private List<TopicPartition> byName(Assignment assignment) {
        Map<Uuid, String> names = new HashMap<>();
        ctx.topics().values().forEach(t -> names.put(t.id(), t.name()));
        List<TopicPartition> partitions = new ArrayList<>();
        assignment.partitions().forEach((id, ps) -> {
            String name = names.get(id);
            if (name != null) {
                ps.forEach(p -> partitions.add(new TopicPartition(name, p)));
            }
        });
        return partitions;
    }

    /**
     * What a classic member told its JoinGroup (Kafka's {@code ClassicMemberMetadata}): the protocol the join answered
     * (its first), the consumer protocol version of its subscription (its assignment is answered in it), its session
     * timeout and every protocol it supports.
     */
    record ClassicMember(String protocolName, short subscriptionVersion, int sessionTimeoutMs, Set<String> protocols) {
    }
}
