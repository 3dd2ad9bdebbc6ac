package dev.samsa.group.classic;

import static dev.samsa.group.classic.ClassicGroupState.COMPLETING_REBALANCE;
import static dev.samsa.group.classic.ClassicGroupState.DEAD;
import static dev.samsa.group.classic.ClassicGroupState.EMPTY;
import static dev.samsa.group.classic.ClassicGroupState.PREPARING_REBALANCE;
import static dev.samsa.group.classic.ClassicGroupState.STABLE;

import dev.samsa.group.Group;
import dev.samsa.event.GroupStateChanged;
import dev.samsa.event.Timeline;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.UnknownMemberIdException;
import org.apache.kafka.common.protocol.Errors;

/**
 * A classic consumer group, as Kafka's {@code ClassicGroup}: members, the generation, the selected protocol, the
 * leader, the members still expected in the join and sync phases, and the one {@link #transitionTo} that moves it
 * through {@link ClassicGroupState}. What drives it lives beside it: one class per request phase
 * ({@link ClassicGroupJoin}, {@link ClassicGroupSync}, {@link ClassicGroupLiveness}) over the one
 * {@link ClassicGroupRebalancer}. Owned by the cluster loop.
 */
public final class ClassicGroup implements Group {

    private final String groupId;
    private final Timeline timeline;
    private ClassicGroupState state = EMPTY;
    private ClassicGroupState previousState;
    private long stateTimestampMs;
    private int generationId;
    private String protocolType;
    private String protocolName;
    private String leaderId;
    private final Map<String, ClassicGroupMember> members = new LinkedHashMap<>();
    private final Map<String, String> staticMembers = new HashMap<>();
    private final Set<String> pendingJoinMembers = new HashSet<>();
    private final Set<String> pendingSyncMembers = new HashSet<>();
    private final Map<String, Integer> supportedProtocols = new HashMap<>();
    private Optional<Set<String>> subscribedTopics = Optional.empty();
    private int numMembersAwaitingJoin;
    private boolean newMemberAdded;
    /** Wall time the current rebalance began, for the liveness rule of its timeout. */
    long rebalanceStartedWallMs;

    public ClassicGroup(String groupId, Timeline timeline, long nowMs) {
        this.groupId = groupId;
        this.timeline = timeline;
        this.stateTimestampMs = nowMs;
    }

    /** A group that exists only through its offsets (a simple group, no GroupMetadata record): Empty. */
    public static ClassicGroup loaded(String groupId, Timeline timeline, long nowMs) {
        return new ClassicGroup(groupId, timeline, nowMs);
    }

    /**
     * A group read back from its last GroupMetadata record, as Kafka's replay: Stable with its members and their
     * assignment when it had members, else Empty. Its members' session timers are the coordinator's to arm.
     */
    public static ClassicGroup loaded(String groupId, ClassicGroupMetadata metadata, Timeline timeline, long nowMs,
                                      long nowWallMs) {
        ClassicGroup g = new ClassicGroup(groupId, timeline,
                metadata.currentStateTimestampMs() >= 0 ? Math.min(nowMs, metadata.currentStateTimestampMs()) : nowMs);
        g.protocolType = metadata.protocolType() == null || metadata.protocolType().isEmpty() ? null : metadata.protocolType();
        g.generationId = metadata.generationId();
        g.protocolName = metadata.protocolName();
        for (ClassicGroupMetadata.Member m : metadata.members()) {
            int rebalanceTimeout = m.rebalanceTimeoutMs() == -1 ? m.sessionTimeoutMs() : m.rebalanceTimeoutMs();
            ClassicGroupMember member = new ClassicGroupMember(m.memberId(), m.groupInstanceId(), m.clientId(), m.clientHost(),
                    rebalanceTimeout, m.sessionTimeoutMs(), g.protocolType, List.of(new Protocol(metadata.protocolName(), m.subscription())),
                    nowWallMs);
            member.setAssignment(m.assignment());
            g.add(member, null);
        }
        g.leaderId = metadata.leaderId();
        g.state = g.members.isEmpty() ? EMPTY : STABLE;
        g.subscribedTopics = g.computeSubscribedTopics();
        return g;
    }

    /** This group as a GroupMetadata record holds it: the current generation and assignment. */
    public ClassicGroupMetadata toMetadata() {
        List<ClassicGroupMetadata.Member> list = new ArrayList<>();
        for (ClassicGroupMember m : members.values()) {
            list.add(new ClassicGroupMetadata.Member(m.memberId(), m.groupInstanceId(), m.clientId(), m.clientHost(),
                    m.rebalanceTimeoutMs(), m.sessionTimeoutMs(), protocolName == null ? new byte[0] : m.metadata(protocolName),
                    m.assignment()));
        }
        return new ClassicGroupMetadata(protocolType, generationId, protocolName, leaderId, stateTimestampMs, list);
    }

    // ---- subscriptions

    /**
     * The topics the members subscribe to, as Kafka's {@code computeSubscribedTopics}: known only for protocol type
     * "consumer" once a protocol is selected (empty for an Empty group); unknown (empty Optional) otherwise.
     */
    public Optional<Set<String>> subscribedTopics() {
        return subscribedTopics;
    }

    /**
     * Kafka's rule: when the subscriptions are unknown, a group of protocol type "consumer" counts as subscribed (its
     * offsets are kept), any other as not subscribed.
     */
    public boolean isSubscribedToTopic(String topic) {
        return subscribedTopics.map(t -> t.contains(topic)).orElse(usesConsumerProtocol());
    }

    public boolean usesConsumerProtocol() {
        return ConsumerProtocol.PROTOCOL_TYPE.equals(protocolType);
    }

    private Optional<Set<String>> computeSubscribedTopics() {
        if (!usesConsumerProtocol()) {
            return Optional.empty();
        }
        if (members.isEmpty()) {
            return Optional.of(Set.of());
        }
        if (protocolName == null) {
            return Optional.empty();
        }
        try {
            Set<String> topics = new HashSet<>();
            for (ClassicGroupMember m : members.values()) {
                // Version 0 of the consumer protocol is the prefix of every later version, as Kafka parses it.
                ByteBuffer buffer = ByteBuffer.wrap(m.metadata(protocolName));
                ConsumerProtocol.deserializeVersion(buffer);
                topics.addAll(ConsumerProtocol.deserializeConsumerProtocolSubscription(buffer, (short) 0).topics());
            }
            return Optional.of(topics);
        } catch (RuntimeException e) {
            // A client's bytes: kafka-clients' readers throw SchemaException, IllegalArgumentException, or plain
            // RuntimeException for an impossible length. Unknown subscriptions are Kafka's answer (KAFKA-20570).
            return Optional.empty();
        }
    }

    // ---- state

    /**
     * Moves the group to {@code target}, stamps cluster time and appends a GroupStateChanged event to the timeline.
     *
     * @throws IllegalStateException naming the group, its state and the target when Kafka's table forbids the move
     */
    public void transitionTo(ClassicGroupState target, long nowMs) {
        if (!target.validPreviousStates().contains(state)) {
            throw new IllegalStateException("Group " + groupId + " should be in one of " + target.validPreviousStates()
                    + " to move to " + target + ", but is in " + state);
        }
        previousState = state;
        state = target;
        stateTimestampMs = nowMs;
        timeline.record(new GroupStateChanged(groupId, String.valueOf(previousState), state.toString(), generationId, leaderId,
                List.copyOf(members.keySet())));
    }

    @Override
    public Type type() {
        return Type.CLASSIC;
    }

    @Override
    public String stateName() {
        return state.toString();
    }

    public ClassicGroupState state() {
        return state;
    }

    public ClassicGroupState previousState() {
        return previousState;
    }

    public boolean isInState(ClassicGroupState s) {
        return state == s;
    }

    /** Cluster time of the last transition: when an Empty group became empty, for offsets retention. */
    public long stateTimestampMs() {
        return stateTimestampMs;
    }

    public boolean canRebalance() {
        return PREPARING_REBALANCE.validPreviousStates().contains(state);
    }

    public String groupId() {
        return groupId;
    }

    public int generationId() {
        return generationId;
    }

    public String protocolType() {
        return protocolType;
    }

    public String protocolName() {
        return protocolName;
    }

    public String leaderOrNull() {
        return leaderId;
    }

    public boolean isLeader(String memberId) {
        return memberId.equals(leaderId);
    }

    Timeline timeline() {
        return timeline;
    }

    // ---- members

    public boolean hasMember(String memberId) {
        return members.containsKey(memberId);
    }

    public ClassicGroupMember member(String memberId) {
        return members.get(memberId);
    }

    public Collection<ClassicGroupMember> allMembers() {
        return members.values();
    }

    public int numMembers() {
        return members.size();
    }

    public boolean hasStaticMember(String instanceId) {
        return staticMembers.containsKey(instanceId);
    }

    public String staticMemberId(String instanceId) {
        return staticMembers.get(instanceId);
    }

    void add(ClassicGroupMember member, Consumer<JoinResult> awaitingJoin) {
        if (member.groupInstanceId() != null) {
            if (staticMembers.containsKey(member.groupInstanceId())) {
                throw new IllegalStateException("Static member " + member.groupInstanceId() + " is already in group " + groupId);
            }
            staticMembers.put(member.groupInstanceId(), member.memberId());
        }
        if (members.isEmpty()) {
            protocolType = member.protocolType();
        }
        if (leaderId == null) {
            leaderId = member.memberId();
        }
        members.put(member.memberId(), member);
        member.protocolNames().forEach(n -> supportedProtocols.merge(n, 1, Integer::sum));
        member.setAwaitingJoin(awaitingJoin);
        if (awaitingJoin != null) {
            numMembersAwaitingJoin++;
        }
        pendingJoinMembers.remove(member.memberId());
    }

    void remove(String memberId) {
        ClassicGroupMember removed = members.remove(memberId);
        if (removed != null) {
            removed.protocolNames().forEach(n -> supportedProtocols.merge(n, -1, Integer::sum));
            if (removed.isAwaitingJoin()) {
                numMembersAwaitingJoin--;
            }
            if (removed.groupInstanceId() != null) {
                staticMembers.remove(removed.groupInstanceId());
            }
        }
        if (memberId.equals(leaderId)) {
            leaderId = members.isEmpty() ? null : members.keySet().iterator().next();
        }
        pendingJoinMembers.remove(memberId);
        pendingSyncMembers.remove(memberId);
    }

    /** A restarted static member takes over its predecessor's place and assignment under a new member id. */
    ClassicGroupMember replaceStaticMember(String instanceId, String oldMemberId, String newMemberId, long nowWallMs) {
        ClassicGroupMember old = members.remove(oldMemberId);
        if (old == null) {
            throw new IllegalStateException("Cannot replace unknown member " + oldMemberId + " of group " + groupId);
        }
        // The old incarnation, if it still waits, learns it is fenced.
        if (old.isAwaitingJoin()) {
            old.awaitingJoin().accept(JoinResult.error(Errors.FENCED_INSTANCE_ID, oldMemberId));
            old.setAwaitingJoin(null);
            numMembersAwaitingJoin--;
        }
        if (old.isAwaitingSync()) {
            old.awaitingSync().accept(SyncResult.error(Errors.FENCED_INSTANCE_ID));
            old.setAwaitingSync(null);
        }
        ClassicGroupMember replacement = old.withMemberId(newMemberId, nowWallMs);
        members.put(newMemberId, replacement);
        if (oldMemberId.equals(leaderId)) {
            leaderId = newMemberId;
        }
        staticMembers.put(instanceId, newMemberId);
        pendingSyncMembers.remove(oldMemberId);
        return replacement;
    }

    void updateMember(ClassicGroupMember member, List<Protocol> protocols, int rebalanceTimeout, int sessionTimeout,
                      Consumer<JoinResult> awaitingJoin) {
        member.protocolNames().forEach(n -> supportedProtocols.merge(n, -1, Integer::sum));
        member.update(protocols, rebalanceTimeout, sessionTimeout);
        member.protocolNames().forEach(n -> supportedProtocols.merge(n, 1, Integer::sum));
        if (awaitingJoin != null && !member.isAwaitingJoin()) {
            numMembersAwaitingJoin++;
        } else if (awaitingJoin == null && member.isAwaitingJoin()) {
            numMembersAwaitingJoin--;
        }
        member.setAwaitingJoin(awaitingJoin);
    }

    boolean completeJoin(ClassicGroupMember member, JoinResult result) {
        if (!member.isAwaitingJoin()) {
            return false;
        }
        Consumer<JoinResult> callback = member.awaitingJoin();
        member.setAwaitingJoin(null);
        numMembersAwaitingJoin--;
        callback.accept(result);
        return true;
    }

    boolean completeSync(ClassicGroupMember member, SyncResult result) {
        if (!member.isAwaitingSync()) {
            return false;
        }
        Consumer<SyncResult> callback = member.awaitingSync();
        member.setAwaitingSync(null);
        callback.accept(result);
        return true;
    }

    // ---- join / sync bookkeeping

    boolean isPendingMember(String memberId) {
        return pendingJoinMembers.contains(memberId);
    }

    void addPendingMember(String memberId) {
        pendingJoinMembers.add(memberId);
    }

    void removePendingMember(String memberId) {
        pendingJoinMembers.remove(memberId);
    }

    int numAwaitingJoin() {
        return numMembersAwaitingJoin;
    }

    boolean hasAllMembersJoined() {
        return members.size() == numMembersAwaitingJoin && pendingJoinMembers.isEmpty();
    }

    List<ClassicGroupMember> notYetRejoinedMembers() {
        return members.values().stream().filter(m -> !m.isAwaitingJoin()).toList();
    }

    void addPendingSyncMember(String memberId) {
        pendingSyncMembers.add(memberId);
    }

    void removePendingSyncMember(String memberId) {
        pendingSyncMembers.remove(memberId);
    }

    Set<String> pendingSyncMembers() {
        return pendingSyncMembers;
    }

    void clearPendingSyncMembers() {
        pendingSyncMembers.clear();
    }

    boolean newMemberAdded() {
        return newMemberAdded;
    }

    void setNewMemberAdded(boolean value) {
        newMemberAdded = value;
    }

    /** The largest rebalance timeout of the members: how long the join and sync phases may last. */
    public int rebalanceTimeoutMs() {
        return members.values().stream().mapToInt(ClassicGroupMember::rebalanceTimeoutMs).max().orElse(0);
    }

    /**
     * If the leader has not rejoined, elect the first member that has. Returns false when no member has rejoined.
     */
    boolean maybeElectNewJoinedLeader() {
        if (leaderId == null) {
            return false;
        }
        if (members.get(leaderId).isAwaitingJoin()) {
            return true;
        }
        for (ClassicGroupMember m : members.values()) {
            if (m.isAwaitingJoin()) {
                leaderId = m.memberId();
                return true;
            }
        }
        return false;
    }

    /** Next generation: picks the protocol and moves to CompletingRebalance, or to Empty without members. */
    void initNextGeneration(long nowMs) {
        generationId++;
        if (!members.isEmpty()) {
            protocolName = selectProtocol();
            transitionTo(COMPLETING_REBALANCE, nowMs);
        } else {
            protocolName = null;
            transitionTo(EMPTY, nowMs);
        }
        subscribedTopics = computeSubscribedTopics();
        pendingSyncMembers.clear();
    }

    /** Kafka's vote: each member votes for its preferred protocol among those all members support. */
    String selectProtocol() {
        if (members.isEmpty()) {
            throw new IllegalStateException("Cannot select a protocol for group " + groupId + " without members");
        }
        Set<String> candidates = supportedProtocols.entrySet().stream().filter(e -> e.getValue() == members.size())
                .map(Map.Entry::getKey).collect(Collectors.toSet());
        Map<String, Integer> votes = new LinkedHashMap<>();
        members.values().forEach(m -> votes.merge(m.vote(candidates), 1, Integer::sum));
        return votes.entrySet().stream().max(Comparator.comparingInt(Map.Entry::getValue)).map(Map.Entry::getKey).orElseThrow();
    }

    /** Whether a member with this protocol type and these protocols may join. */
    boolean supportsProtocols(String memberProtocolType, Set<String> memberProtocols) {
        if (state == EMPTY) {
            return !memberProtocolType.isEmpty() && !memberProtocols.isEmpty();
        }
        return memberProtocolType.equals(protocolType)
                && memberProtocols.stream().anyMatch(n -> supportedProtocols.getOrDefault(n, 0) == members.size());
    }

    /** The members as the leader sees them in its JoinGroup answer. */
    List<JoinResult.JoinedMember> joinedMembers() {
        if (state == DEAD || state == PREPARING_REBALANCE) {
            throw new IllegalStateException("Cannot list the member metadata of group " + groupId + " in state " + state);
        }
        List<JoinResult.JoinedMember> list = new ArrayList<>();
        members.values().forEach(m -> list.add(new JoinResult.JoinedMember(m.memberId(), m.groupInstanceId(), m.metadata(protocolName))));
        return list;
    }

    // ---- validation

    /**
     * Kafka's member check: a static member must be the current incarnation of its instance id; the member must exist.
     *
     * @throws FencedInstanceIdException when another incarnation of the instance id is the member now
     * @throws UnknownMemberIdException when the member is not in the group
     */
    public void throwIfMemberIsInvalid(String memberId, String groupInstanceId) {
        if (groupInstanceId != null) {
            String existing = staticMembers.get(groupInstanceId);
            if (existing == null) {
                throw new UnknownMemberIdException("Instance id " + groupInstanceId + " is not a member of group " + groupId
                        + "; rejoin the group.");
            }
            if (!existing.equals(memberId)) {
                throw new FencedInstanceIdException("Member " + memberId + " with instance id " + groupInstanceId
                        + " was fenced by a newer member " + existing + " of group " + groupId
                        + "; two consumers share group.instance.id.");
            }
        }
        if (!members.containsKey(memberId)) {
            throw new UnknownMemberIdException("Member " + memberId + " is not in group " + groupId + "; rejoin the group.");
        }
    }

    @Override
    public String toString() {
        return "ClassicGroup[" + groupId + " " + state + " generation=" + generationId + " protocol=" + protocolName
                + " leader=" + leaderId + " members=" + members.values() + "]";
    }
}
