package dev.samsa.group.classic;

import dev.samsa.group.MemberLiveness;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * One member of a classic group, as Kafka's {@code ClassicGroupMember}: identity, timeouts, supported protocols, the
 * assignment of the current generation and the JoinGroup or SyncGroup answer it is parked on. It also remembers when
 * it last spoke in wall time, for the liveness rule of DESIGN.md (a jump of the manual clock does not kill a member
 * that is still heartbeating). Owned by the cluster loop.
 */
public final class ClassicGroupMember {

    private final String memberId;
    private final String groupInstanceId;
    private final String clientId;
    private final String clientHost;
    private final String protocolType;
    private int rebalanceTimeoutMs;
    private int sessionTimeoutMs;
    private List<Protocol> protocols;
    private byte[] assignment = SyncResult.EMPTY;
    private Consumer<JoinResult> awaitingJoin;
    private Consumer<SyncResult> awaitingSync;
    private boolean isNew;
    /** When and over which connection ({@code brokerId/clientAddress}) it last spoke, for the liveness rule. */
    private final MemberLiveness liveness;

    /** @param nowWallMs the loop's wall time: a new or loaded member counts as just heard */
    public ClassicGroupMember(String memberId, String groupInstanceId, String clientId, String clientHost,
                              int rebalanceTimeoutMs, int sessionTimeoutMs, String protocolType, List<Protocol> protocols,
                              long nowWallMs) {
        this.liveness = MemberLiveness.ownInterval(sessionTimeoutMs, nowWallMs);
        this.memberId = memberId;
        this.groupInstanceId = groupInstanceId;
        this.clientId = clientId;
        this.clientHost = clientHost;
        this.rebalanceTimeoutMs = rebalanceTimeoutMs;
        this.sessionTimeoutMs = sessionTimeoutMs;
        this.protocolType = protocolType;
        this.protocols = List.copyOf(protocols);
    }

    /** A copy under a new member id: how a restarted static member takes over its predecessor. */
    ClassicGroupMember withMemberId(String newMemberId, long nowWallMs) {
        ClassicGroupMember m = new ClassicGroupMember(newMemberId, groupInstanceId, clientId, clientHost, rebalanceTimeoutMs,
                sessionTimeoutMs, protocolType, protocols, nowWallMs);
        m.assignment = assignment;
        return m;
    }

    public String memberId() {
        return memberId;
    }

    public String groupInstanceId() {
        return groupInstanceId;
    }

    public boolean isStatic() {
        return groupInstanceId != null;
    }

    public String clientId() {
        return clientId;
    }

    public String clientHost() {
        return clientHost;
    }

    public String protocolType() {
        return protocolType;
    }

    public int rebalanceTimeoutMs() {
        return rebalanceTimeoutMs;
    }

    public int sessionTimeoutMs() {
        return sessionTimeoutMs;
    }

    public List<Protocol> protocols() {
        return protocols;
    }

    public Set<String> protocolNames() {
        Set<String> names = new LinkedHashSet<>();
        protocols.forEach(p -> names.add(p.name()));
        return names;
    }

    /** This member's metadata for {@code protocolName}. */
    public byte[] metadata(String protocolName) {
        for (Protocol p : protocols) {
            if (p.name().equals(protocolName)) {
                return p.metadata();
            }
        }
        throw new IllegalArgumentException("Member " + memberId + " does not support protocol " + protocolName);
    }

    public boolean matches(List<Protocol> other) {
        return protocols.equals(other);
    }

    /** Its first protocol, in its own order of preference, that every member supports. */
    String vote(Set<String> candidates) {
        for (Protocol p : protocols) {
            if (candidates.contains(p.name())) {
                return p.name();
            }
        }
        throw new IllegalArgumentException("Member " + memberId + " does not support any of the candidate protocols " + candidates);
    }

    void update(List<Protocol> newProtocols, int rebalanceTimeout, int sessionTimeout) {
        this.protocols = new ArrayList<>(newProtocols);
        this.rebalanceTimeoutMs = rebalanceTimeout;
        this.sessionTimeoutMs = sessionTimeout;
        liveness.interval(sessionTimeout);
    }

    public byte[] assignment() {
        return assignment;
    }

    void setAssignment(byte[] assignment) {
        this.assignment = assignment;
    }

    public boolean isAwaitingJoin() {
        return awaitingJoin != null;
    }

    public boolean isAwaitingSync() {
        return awaitingSync != null;
    }

    Consumer<JoinResult> awaitingJoin() {
        return awaitingJoin;
    }

    void setAwaitingJoin(Consumer<JoinResult> callback) {
        this.awaitingJoin = callback;
    }

    void setAwaitingSync(Consumer<SyncResult> callback) {
        this.awaitingSync = callback;
    }

    Consumer<SyncResult> awaitingSync() {
        return awaitingSync;
    }

    public boolean isNew() {
        return isNew;
    }

    void setNew(boolean value) {
        this.isNew = value;
    }

    /** Kafka's rule: a parked JoinGroup or SyncGroup counts as a heartbeat, except for a member that never joined. */
    boolean hasSatisfiedHeartbeat() {
        return !isNew && (isAwaitingJoin() || isAwaitingSync());
    }

    /**
     * Any request of the classic protocol's list (JoinGroup, SyncGroup, and an OffsetCommit while Stable or
     * PreparingRebalance), on {@code connection}: it is alive in wall time.
     */
    void heard(String connection, long nowWallMs) {
        liveness.heard(connection, nowWallMs);
    }

    /** A Heartbeat request, answered at once: it also measures the gap the member's timer left. */
    void heartbeat(String connection, long nowWallMs) {
        liveness.heartbeat(connection, nowWallMs);
    }

    /**
     * The connection {@code closed} has closed: if it is the one this member last spoke on, the member is silent from
     * now on, until it speaks again on another. Returns whether it was this member's.
     */
    boolean connectionClosed(String closed) {
        return liveness.connectionClosed(closed);
    }

    /** Its wall-time liveness, for the rule every member kind shares (DESIGN.md). */
    MemberLiveness liveness() {
        return liveness;
    }

    @Override
    public String toString() {
        return memberId + (groupInstanceId == null ? "" : "(" + groupInstanceId + ")");
    }
}
