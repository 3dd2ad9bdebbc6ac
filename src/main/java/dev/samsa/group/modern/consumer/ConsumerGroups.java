package dev.samsa.group.modern.consumer;

import dev.samsa.event.MemberDisconnected;
import dev.samsa.event.MemberJoined;
import dev.samsa.event.MemberRemoved;
import dev.samsa.event.SessionRearmed;
import dev.samsa.event.Timeline;
import dev.samsa.group.MemberLiveness;
import dev.samsa.group.modern.Assignment;
import dev.samsa.group.modern.ConsumerGroupAssignor;
import dev.samsa.group.modern.MemberState;
import dev.samsa.group.modern.RangeAssignor;
import dev.samsa.group.modern.TopicMetadata;
import dev.samsa.group.modern.UniformAssignor;
import dev.samsa.time.Scheduler;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.FencedMemberEpochException;
import org.apache.kafka.common.errors.GroupMaxSizeReachedException;
import org.apache.kafka.common.errors.InvalidRegularExpression;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.UnknownMemberIdException;
import org.apache.kafka.common.errors.UnreleasedInstanceIdException;
import org.apache.kafka.common.errors.UnsupportedAssignorException;

/**
 * The KIP-848 consumer protocol, as Kafka's {@code GroupMetadataManager.consumerGroupHeartbeat}: a heartbeat joins
 * (epoch 0), keeps the session, reports what the member owns and learns its assignment; epoch -1 leaves, -2 leaves a
 * static member's place open until its session ends. Any change of membership, subscription or subscribed topic moves
 * the group epoch on; the next heartbeat computes the target assignment with the group's assignor; each member then
 * reconciles towards it ({@link CurrentAssignmentBuilder}). Two timers per member: its session
 * ({@code group.consumer.session.timeout.ms}, a liveness deadline) and, while it must revoke partitions, its rebalance
 * timeout. Owned by the cluster loop.
 */
public final class ConsumerGroups {

    private static final Map<String, ConsumerGroupAssignor> ASSIGNORS = Map.of(
            "uniform", new UniformAssignor(), "range", new RangeAssignor());

    private final ConsumerGroupContext ctx;
    private final Timeline timeline;

    public ConsumerGroups(ConsumerGroupContext ctx, Timeline timeline) {
        this.ctx = ctx;
        this.timeline = timeline;
    }

    static String sessionKey(String groupId, String memberId) {
        return "consumer-session-" + groupId + "-" + memberId;
    }

    static String revocationKey(String groupId, String memberId) {
        return "consumer-revocation-" + groupId + "-" + memberId;
    }

    /**
     * One heartbeat of {@code group}, which the coordinator created for a join.
     *
     * @throws ApiException FENCED_MEMBER_EPOCH, UNKNOWN_MEMBER_ID, UNRELEASED_INSTANCE_ID, GROUP_MAX_SIZE_REACHED,
     *         UNSUPPORTED_ASSIGNOR, INVALID_REGULAR_EXPRESSION or INVALID_REQUEST, as Kafka answers
     */
    public HeartbeatResult heartbeat(ConsumerGroup group, HeartbeatRequest req) {
        ConsumerGroupConfig config = ctx.consumerConfig();
        throwIfRequestIsInvalid(req, config);
        if (req.memberEpoch() < 0) {
            return leave(group, req);
        }
        ConsumerGroupMember member = memberFor(group, req, config);
        ConsumerGroupMember updated = member.withRequest(req.rackId(), req.rebalanceTimeoutMs(), req.subscribedTopicNames(),
                req.subscribedTopicRegex(), req.serverAssignor(), req.clientId(), req.connection());
        boolean bump = group.groupEpoch() == 0 || group.memberOrNull(member.memberId()) == null
                || !updated.hasSameSubscription(member);
        group.putMember(updated);
        SortedMap<String, TopicMetadata> subscribed = subscribedTopics(group);
        if (bump || !subscribed.equals(group.subscribedTopics())) {
            group.setSubscribedTopics(subscribed);
            group.setGroupEpoch(group.groupEpoch() + 1);
        }
        if (group.groupEpoch() > group.targetAssignmentEpoch()) {
            computeTargetAssignment(group, config);
        }
        ConsumerGroupMember reconciled = CurrentAssignmentBuilder.reconcile(updated, group.targetAssignmentEpoch(),
                group.targetAssignment(updated.memberId()), group::currentPartitionEpoch, req.owned());
        group.putMember(reconciled);
        scheduleRevocationTimeout(group, member, reconciled);
        long nowWallMs = ctx.scheduler().wallMs();
        MemberLiveness liveness = group.liveness.computeIfAbsent(reconciled.memberId(),
                m -> MemberLiveness.toldInterval(config.heartbeatIntervalMs(), nowWallMs));
        liveness.interval(config.heartbeatIntervalMs());
        liveness.heartbeat(req.connection(), nowWallMs);
        liveness.awaitingAnswer();
        scheduleSession(group.groupId(), reconciled.memberId(), config);
        group.updateState();
        boolean full = req.rebalanceTimeoutMs() != -1 && (req.subscribedTopicNames() != null || req.subscribedTopicRegex() != null)
                && req.owned() != null;
        boolean changed = !member.assignedPartitions().equals(reconciled.assignedPartitions());
        return new HeartbeatResult(reconciled.memberId(), reconciled.memberEpoch(), config.heartbeatIntervalMs(),
                req.memberEpoch() == 0 || full || changed ? reconciled.assignedPartitions() : null);
    }

    /** Kafka's {@code throwIfConsumerGroupHeartbeatRequestIsInvalid}, for what a 4.x client can send wrong. */
    private static void throwIfRequestIsInvalid(HeartbeatRequest req, ConsumerGroupConfig config) {
        if (req.memberEpoch() < HeartbeatRequest.STATIC_LEAVE) {
            throw new InvalidRequestException("MemberEpoch " + req.memberEpoch() + " is invalid.");
        }
        if (req.memberEpoch() == HeartbeatRequest.STATIC_LEAVE && req.instanceId() == null) {
            throw new InvalidRequestException("InstanceId can't be null when MemberEpoch is -2.");
        }
        if (req.memberEpoch() == HeartbeatRequest.JOIN) {
            if (req.rebalanceTimeoutMs() == -1) {
                throw new InvalidRequestException("RebalanceTimeoutMs must be provided in first request.");
            }
            if (req.owned() == null || !req.owned().isEmpty()) {
                throw new InvalidRequestException("TopicPartitions must be empty when (re-)joining.");
            }
            if (req.subscribedTopicNames() == null && req.subscribedTopicRegex() == null) {
                throw new InvalidRequestException("SubscribedTopicNames or SubscribedTopicRegex must be set in first request.");
            }
        }
        if (req.serverAssignor() != null && !config.assignors().contains(req.serverAssignor())) {
            throw new UnsupportedAssignorException("ServerAssignor " + req.serverAssignor() + " is not supported. "
                    + "Supported assignors: " + String.join(", ", config.assignors()) + ".");
        }
        if (req.subscribedTopicRegex() != null && !req.subscribedTopicRegex().isEmpty()) {
            try {
                Pattern.compile(req.subscribedTopicRegex());
            } catch (PatternSyntaxException e) {
                throw new InvalidRegularExpression("SubscribedTopicRegex " + req.subscribedTopicRegex() + " is not a valid "
                        + "regular expression: " + e.getDescription());
            }
        }
    }

    /** The member the heartbeat speaks for: a new one on epoch 0, else the known one in an acceptable epoch. */
    private ConsumerGroupMember memberFor(ConsumerGroup group, HeartbeatRequest req, ConsumerGroupConfig config) {
        ConsumerGroupMember member = group.memberOrNull(req.memberId());
        if (req.memberEpoch() != HeartbeatRequest.JOIN) {
            if (member == null) {
                throw new UnknownMemberIdException("Member " + req.memberId() + " is not a member of group "
                        + group.groupId() + ".");
            }
            throwIfMemberEpochIsInvalid(member, req.memberEpoch(), req.owned());
            return member;
        }
        if (member != null) {
            // A join of a known member: it lost its state and starts again with nothing.
            return member;
        }
        if (group.numMembers() >= config.maxSize()) {
            throw new GroupMaxSizeReachedException("The consumer group has reached its maximum capacity of "
                    + config.maxSize() + " members.");
        }
        if (req.instanceId() != null) {
            ConsumerGroupMember previous = group.staticMemberOrNull(req.instanceId());
            if (previous != null) {
                if (previous.memberEpoch() != HeartbeatRequest.STATIC_LEAVE) {
                    throw new UnreleasedInstanceIdException("Static member " + previous.memberId() + " with instance id "
                            + req.instanceId() + " is not released; it must leave first.");
                }
                return replaceStaticMember(group, previous, req.memberId());
            }
        }
        timeline.record(new MemberJoined(group.groupId(), req.memberId(), req.instanceId(), req.clientId()));
        return ConsumerGroupMember.joining(req.memberId(), req.instanceId());
    }

    /**
     * A static member back within its session takes its predecessor's place: the same partitions and target, so the
     * group epoch does not move and the others notice nothing.
     */
    private ConsumerGroupMember replaceStaticMember(ConsumerGroup group, ConsumerGroupMember previous, String memberId) {
        Assignment target = group.targetAssignment(previous.memberId());
        group.removeMember(previous.memberId());
        ctx.scheduler().cancel(sessionKey(group.groupId(), previous.memberId()));
        ConsumerGroupMember replacement = previous.withMemberId(memberId, 0);
        group.putMember(replacement);
        group.targetAssignment().put(memberId, target);
        timeline.record(new MemberJoined(group.groupId(), memberId, previous.instanceId(), previous.clientId()));
        return replacement;
    }

    /** Kafka's {@code throwIfConsumerGroupMemberEpochIsInvalid}. */
    private static void throwIfMemberEpochIsInvalid(ConsumerGroupMember member, int received, Assignment owned) {
        if (received > member.memberEpoch()) {
            throw new FencedMemberEpochException("The consumer group member has a greater member epoch (" + received
                    + ") than the one known by the group coordinator (" + member.memberEpoch()
                    + "). The member must abandon all its partitions and rejoin.");
        }
        if (received < member.memberEpoch()) {
            // The answer that moved it to the new epoch may have been lost: the previous epoch is fine if it owns no more.
            if (received != member.previousMemberEpoch() || !isSubset(owned, member.assignedPartitions())) {
                throw new FencedMemberEpochException("The consumer group member has a smaller member epoch (" + received
                        + ") than the one known by the group coordinator (" + member.memberEpoch()
                        + "). The member must abandon all its partitions and rejoin.");
            }
        }
    }

    private static boolean isSubset(Assignment owned, Assignment assigned) {
        if (owned == null) {
            return false;
        }
        return owned.partitions().entrySet().stream().allMatch(e -> assigned.partitions(e.getKey()).containsAll(e.getValue()));
    }

    private HeartbeatResult leave(ConsumerGroup group, HeartbeatRequest req) {
        ConsumerGroupMember member = group.memberOrNull(req.memberId());
        if (member == null && req.instanceId() != null) {
            member = group.staticMemberOrNull(req.instanceId());
        }
        if (member == null) {
            throw new UnknownMemberIdException("Member " + req.memberId() + " is not a member of group " + group.groupId() + ".");
        }
        int interval = ctx.consumerConfig().heartbeatIntervalMs();
        if (req.memberEpoch() == HeartbeatRequest.STATIC_LEAVE) {
            // Its partitions stay with its place until the session ends or the instance comes back.
            group.putMember(member.withReconciliation(member.state(), HeartbeatRequest.STATIC_LEAVE,
                    member.assignedPartitions(), member.partitionsPendingRevocation()));
            group.liveness.computeIfAbsent(member.memberId(), m -> MemberLiveness.toldInterval(interval, 0)).silence();
            ctx.scheduler().cancel(revocationKey(group.groupId(), member.memberId()));
            // Its epoch -2 is not the target's: the group reconciles until the instance comes back, as Kafka reports it.
            group.updateState();
            return new HeartbeatResult(member.memberId(), HeartbeatRequest.STATIC_LEAVE, interval, null);
        }
        removeMember(group, member.memberId(), "left the group");
        return new HeartbeatResult(member.memberId(), HeartbeatRequest.LEAVE, interval, null);
    }

    /** Fences a member (left, session or rebalance timeout): its partitions are free and the group epoch moves on. */
    public void removeMember(ConsumerGroup group, String memberId, String why) {
        ConsumerGroupMember member = group.memberOrNull(memberId);
        if (member == null) {
            return;
        }
        group.removeMember(memberId);
        ctx.scheduler().cancel(sessionKey(group.groupId(), memberId));
        ctx.scheduler().cancel(revocationKey(group.groupId(), memberId));
        group.setGroupEpoch(group.groupEpoch() + 1);
        if (group.members().isEmpty()) {
            // Nobody is left to assign to: the empty target is at the new epoch, as Kafka 4.4 describes an emptied group.
            group.setTargetAssignment(group.groupEpoch(), Map.of());
        }
        timeline.record(new MemberRemoved(group.groupId(), memberId, member.instanceId(), why));
        group.updateState();
    }

    /** The topics the members subscribe to that exist, by name or by regular expression. */
    private SortedMap<String, TopicMetadata> subscribedTopics(ConsumerGroup group) {
        Map<String, TopicMetadata> topics = ctx.topics();
        SortedMap<String, TopicMetadata> subscribed = new TreeMap<>();
        for (ConsumerGroupMember m : group.members()) {
            for (String name : subscribedNames(m, topics)) {
                subscribed.put(name, topics.get(name));
            }
        }
        return subscribed;
    }

    private static Set<String> subscribedNames(ConsumerGroupMember member, Map<String, TopicMetadata> topics) {
        Set<String> names = new TreeSet<>();
        member.subscribedTopicNames().stream().filter(topics::containsKey).forEach(names::add);
        if (member.subscribedTopicRegex() != null) {
            Pattern pattern = Pattern.compile(member.subscribedTopicRegex());
            topics.keySet().stream().filter(t -> pattern.matcher(t).matches()).forEach(names::add);
        }
        return names;
    }

    /** The group's assignor, as Kafka picks it: the one most members ask for (ties: the first name), else the first configured. */
    public String assignorName(ConsumerGroup group, ConsumerGroupConfig config) {
        Map<String, Integer> votes = new TreeMap<>();
        group.members().stream().filter(m -> m.serverAssignor() != null).forEach(m -> votes.merge(m.serverAssignor(), 1, Integer::sum));
        String fallback = config.assignors().stream().filter(ASSIGNORS::containsKey).findFirst().orElse("uniform");
        return votes.entrySet().stream().max(Map.Entry.<String, Integer>comparingByValue()
                        .thenComparing(Map.Entry.comparingByKey(java.util.Comparator.reverseOrder())))
                .map(Map.Entry::getKey).orElse(fallback);
    }

    /** Runs the group's assignor for the group epoch. */
    private void computeTargetAssignment(ConsumerGroup group, ConsumerGroupConfig config) {
        Map<String, TopicMetadata> topics = ctx.topics();
        SortedMap<String, Set<Uuid>> subscriptions = new TreeMap<>();
        Map<Uuid, TopicMetadata> byId = new HashMap<>();
        for (ConsumerGroupMember m : group.members()) {
            Set<Uuid> ids = new TreeSet<>();
            for (String name : subscribedNames(m, topics)) {
                TopicMetadata t = topics.get(name);
                ids.add(t.id());
                byId.put(t.id(), t);
            }
            subscriptions.put(m.memberId(), ids);
        }
        ConsumerGroupAssignor assignor = ASSIGNORS.get(assignorName(group, config));
        group.setTargetAssignment(group.groupEpoch(), assignor.assign(subscriptions, byId, group.targetAssignment()));
    }

    /** While a member must revoke, its rebalance timeout runs; a member that does not revoke in time is fenced. */
    private void scheduleRevocationTimeout(ConsumerGroup group, ConsumerGroupMember before, ConsumerGroupMember after) {
        String key = revocationKey(group.groupId(), after.memberId());
        if (after.state() != MemberState.UNREVOKED_PARTITIONS) {
            ctx.scheduler().cancel(key);
        } else if (before.state() != MemberState.UNREVOKED_PARTITIONS || before.memberEpoch() != after.memberEpoch()
                || !ctx.scheduler().isScheduled(key)) {
            String groupId = group.groupId();
            String memberId = after.memberId();
            int epoch = after.memberEpoch();
            ctx.scheduler().scheduleAfter(key, after.rebalanceTimeoutMs(), () -> revocationExpired(groupId, memberId, epoch, false));
        }
    }

    /**
     * The rebalance timeout passed in cluster time with partitions still unrevoked. On a manual clock a member still
     * talking in wall time gets its rebalance timeout again in wall time (the liveness rule of DESIGN.md); then, or when
     * silent, it is fenced.
     */
    private void revocationExpired(String groupId, String memberId, int epoch, boolean graceGiven) {
        ConsumerGroup group = ctx.consumerGroupOrNull(groupId);
        ConsumerGroupMember member = group == null ? null : group.memberOrNull(memberId);
        if (member == null || member.state() != MemberState.UNREVOKED_PARTITIONS || member.memberEpoch() != epoch) {
            return;
        }
        Scheduler scheduler = ctx.scheduler();
        MemberLiveness liveness = group.liveness.get(memberId);
        if (!graceGiven && scheduler.manualClock() && liveness != null && !liveness.silentInWallTime(scheduler.wallMs())) {
            scheduler.scheduleWall(revocationKey(groupId, memberId), member.rebalanceTimeoutMs(),
                    () -> revocationExpired(groupId, memberId, epoch, true));
            return;
        }
        removeMember(group, memberId, "did not revoke its partitions within its rebalance timeout of "
                + member.rebalanceTimeoutMs() + " ms");
        ctx.persistConsumerGroup(group, error -> { });
    }

    private void scheduleSession(String groupId, String memberId, ConsumerGroupConfig config) {
        ctx.scheduler().scheduleAfter(sessionKey(groupId, memberId), sessionTimeoutMs(groupId, memberId, config),
                () -> sessionExpired(groupId, memberId, false));
    }

    /** A classic member's session is the one its JoinGroup asked for, as Kafka's classicProtocolSessionTimeout. */
    private int sessionTimeoutMs(String groupId, String memberId, ConsumerGroupConfig config) {
        ConsumerGroup group = ctx.consumerGroupOrNull(groupId);
        ClassicProtocolMembers.ClassicMember classic = group == null ? null : group.classicMembers.get(memberId);
        return classic == null ? config.sessionTimeoutMs() : classic.sessionTimeoutMs();
    }

    /** A classic member's JoinGroup, SyncGroup or Heartbeat, answered at once: it is alive, and its session starts again. */
    void heardFrom(ConsumerGroup group, String memberId, String connection) {
        long nowWallMs = ctx.scheduler().wallMs();
        int sessionTimeoutMs = sessionTimeoutMs(group.groupId(), memberId, ctx.consumerConfig());
        MemberLiveness liveness = group.liveness.computeIfAbsent(memberId, m -> MemberLiveness.ownInterval(sessionTimeoutMs, nowWallMs));
        liveness.interval(sessionTimeoutMs);
        liveness.heartbeat(connection, nowWallMs);
        liveness.answered(nowWallMs);
        scheduleSession(group.groupId(), memberId, ctx.consumerConfig());
    }

    /**
     * The session passed in cluster time: the member's {@link MemberLiveness} decides whether it is fenced, judged again
     * after the grace of an open connection, or, still talking in wall time, judged again once it could have gone
     * silent (its next heartbeat re-arms the session in cluster time first).
     */
    private void sessionExpired(String groupId, String memberId, boolean graceGiven) {
        ConsumerGroup group = ctx.consumerGroupOrNull(groupId);
        ConsumerGroupMember member = group == null ? null : group.memberOrNull(memberId);
        if (member == null) {
            return;
        }
        ConsumerGroupConfig config = ctx.consumerConfig();
        Scheduler scheduler = ctx.scheduler();
        MemberLiveness liveness = group.liveness.get(memberId);
        long nowWallMs = scheduler.wallMs();
        MemberLiveness.Verdict verdict = liveness == null ? MemberLiveness.Verdict.EXPIRE
                : liveness.atDeadline(nowWallMs, scheduler.manualClock(), graceGiven);
        switch (verdict) {
            case GRACE -> scheduler.scheduleWall(sessionKey(groupId, memberId), MemberLiveness.CONNECTION_CLOSE_GRACE_MS,
                    () -> sessionExpired(groupId, memberId, true));
            case REARM -> {
                timeline.record(new SessionRearmed(groupId, memberId, member.instanceId(), liveness.msSinceHeard(nowWallMs),
                        liveness.heartbeatIntervalMs()));
                scheduler.scheduleWall(sessionKey(groupId, memberId), liveness.msUntilSilent(nowWallMs) + 1,
                        () -> sessionExpired(groupId, memberId, true));
            }
            case EXPIRE -> {
                removeMember(group, memberId, "session timeout of " + sessionTimeoutMs(groupId, memberId, config) + " ms expired"
                        + (liveness == null || liveness.isConnected() ? "" : "; its connection to the coordinator closed"));
                ctx.persistConsumerGroup(group, error -> { });
            }
        }
    }

    /** The member's heartbeat was answered; its silence counts from now (see {@link MemberLiveness}). */
    public void answered(ConsumerGroup group, String memberId) {
        MemberLiveness liveness = group.liveness.get(memberId);
        if (liveness != null) {
            liveness.answered(ctx.scheduler().wallMs());
        }
    }

    /** A client connection closed: the members that last spoke on it are silent from now on (DESIGN.md). */
    public void connectionClosed(ConsumerGroup group, String connection) {
        group.liveness.forEach((memberId, liveness) -> {
            ConsumerGroupMember member = group.memberOrNull(memberId);
            if (liveness.connectionClosed(connection) && member != null) {
                timeline.record(new MemberDisconnected(group.groupId(), memberId, member.instanceId(), connection));
            }
        });
    }

    /** A group read back by a new coordinator: its members get a full session to find it, as Kafka's onLoaded arms them. */
    public void onLoaded(ConsumerGroup group) {
        ConsumerGroupConfig config = ctx.consumerConfig();
        long nowWallMs = ctx.scheduler().wallMs();
        for (ConsumerGroupMember m : group.members()) {
            ClassicProtocolMembers.ClassicMember classic = group.classicMembers.get(m.memberId());
            group.liveness.put(m.memberId(), classic == null ? MemberLiveness.toldInterval(config.heartbeatIntervalMs(), nowWallMs)
                    : MemberLiveness.ownInterval(classic.sessionTimeoutMs(), nowWallMs));
            scheduleSession(group.groupId(), m.memberId(), config);
            if (m.state() == MemberState.UNREVOKED_PARTITIONS) {
                String groupId = group.groupId();
                int epoch = m.memberEpoch();
                ctx.scheduler().scheduleAfter(revocationKey(groupId, m.memberId()), m.rebalanceTimeoutMs(),
                        () -> revocationExpired(groupId, m.memberId(), epoch, false));
            }
        }
    }

    /** The group's coordinator partition moved away: its timers stop. */
    public void unload(ConsumerGroup group) {
        for (ConsumerGroupMember m : group.members()) {
            ctx.scheduler().cancel(sessionKey(group.groupId(), m.memberId()));
            ctx.scheduler().cancel(revocationKey(group.groupId(), m.memberId()));
        }
    }
}
