package dev.samsa.group.classic;

import java.util.EnumSet;
import java.util.Set;

/**
 * The five states of a classic group, as Kafka's {@code ClassicGroupState}; each constant documents what the group
 * does with each request in that state and what moves it on. {@link ClassicGroup#transitionTo} is the only way to
 * change state and asserts the move against {@link #validPreviousStates()}.
 */
public enum ClassicGroupState {

    /**
     * No members, but lingers until all offsets have expired; also the state of groups that only commit offsets.
     *
     * <p>JoinGroup from a new member: accepted, moves to PreparingRebalance. SyncGroup, Heartbeat, LeaveGroup and a
     * member's OffsetCommit: UNKNOWN_MEMBER_ID. OffsetCommit with generation -1 (admin, assign()): accepted.
     * OffsetFetch: allowed. Offsets expire offsets.retention.minutes after the group became Empty; with no offsets
     * left the group moves to Dead and is removed.
     */
    EMPTY("Empty"),

    /**
     * Waiting for every member to (re)join. Heartbeat and SyncGroup: REBALANCE_IN_PROGRESS. LeaveGroup removes the
     * member. JoinGroup is parked until all known members have joined or the rebalance timeout (the members' largest
     * rebalance.timeout.ms) passes; members that did not rejoin by then are removed. Commits of the previous generation
     * are allowed. Moves to CompletingRebalance when the join phase completes with members, to Empty without.
     */
    PREPARING_REBALANCE("PreparingRebalance"),

    /**
     * Every joined member got its JoinGroup answer; waiting for the leader's assignment. Heartbeat and OffsetCommit:
     * REBALANCE_IN_PROGRESS. Followers' SyncGroup is parked until the leader's arrives; then the group moves to
     * Stable. A join with new metadata, a leave or a member failure move it back to PreparingRebalance; members that
     * send no SyncGroup within the rebalance timeout are removed and the group rebalances.
     */
    COMPLETING_REBALANCE("CompletingRebalance"),

    /**
     * Assignment handed out. Heartbeat: answered normally. SyncGroup: the current assignment. JoinGroup from a follower
     * with unchanged metadata: the current generation; from the leader or with new metadata: PreparingRebalance.
     * OffsetCommit: accepted from the current generation. A leave or a session expiry moves to PreparingRebalance.
     */
    STABLE("Stable"),

    /**
     * Removed: no members and no offsets, deleted by DeleteGroups, or its coordinator partition moved away. Every
     * group request: COORDINATOR_NOT_AVAILABLE or UNKNOWN_MEMBER_ID, as Kafka answers. Final.
     */
    DEAD("Dead");

    private final String displayName;

    ClassicGroupState(String displayName) {
        this.displayName = displayName;
    }

    /** The legal predecessors of this state: Kafka's table, in one place. */
    public Set<ClassicGroupState> validPreviousStates() {
        return switch (this) {
            case EMPTY -> EnumSet.of(PREPARING_REBALANCE);
            case PREPARING_REBALANCE -> EnumSet.of(STABLE, COMPLETING_REBALANCE, EMPTY);
            case COMPLETING_REBALANCE -> EnumSet.of(PREPARING_REBALANCE);
            case STABLE -> EnumSet.of(COMPLETING_REBALANCE);
            case DEAD -> EnumSet.of(STABLE, PREPARING_REBALANCE, COMPLETING_REBALANCE, EMPTY, DEAD);
        };
    }

    /** Kafka's name, as ListGroups and DescribeGroups report it ("PreparingRebalance"). */
    @Override
    public String toString() {
        return displayName;
    }
}
