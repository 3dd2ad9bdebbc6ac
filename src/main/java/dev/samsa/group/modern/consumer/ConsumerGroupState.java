package dev.samsa.group.modern.consumer;

import java.util.EnumSet;
import java.util.Set;

/**
 * The five states of a consumer group (KIP-848), as Kafka's {@code ConsumerGroup.ConsumerGroupState}. Unlike a classic
 * group's, the state is not driven by requests but read off the group after each change (Kafka's
 * {@code maybeUpdateGroupState}): Empty without members; else Assigning while the group epoch is ahead of the target
 * assignment epoch; else Reconciling while a member is not Stable in the target epoch; else Stable. So every live state
 * may follow every other; {@link ConsumerGroup#updateState} asserts the move against {@link #validPreviousStates()}
 * and records it on the timeline.
 */
public enum ConsumerGroupState {

    /**
     * No members; lingers while it has committed offsets. ConsumerGroupHeartbeat with epoch 0 joins it (the group epoch
     * moves on, the group goes to Assigning, and usually on in the same request). OffsetCommit with member epoch -1 (admin,
     * assign()) is accepted; with a member: UNKNOWN_MEMBER_ID. DeleteGroups is allowed.
     */
    EMPTY("Empty"),

    /**
     * A member joined, left, changed its subscription, or a subscribed topic changed: the group epoch is ahead of the
     * target assignment. The next heartbeat of any member runs the assignor, which makes the target of the group epoch.
     * OffsetCommit from members in their current epoch is accepted.
     */
    ASSIGNING("Assigning"),

    /**
     * The target assignment is computed, and some member is not there yet: it must revoke partitions first (its
     * heartbeats carry what it still owns; its rebalance timeout bounds the wait) or wait for partitions others still
     * own. Each heartbeat moves its member on; the group is Stable when all are.
     */
    RECONCILING("Reconciling"),

    /** Every member is Stable in the target assignment epoch. Heartbeats only keep sessions alive. */
    STABLE("Stable"),

    /** Deleted (DeleteGroups) or unloaded with its coordinator partition. Requests find no group. Final. */
    DEAD("Dead");

    private final String displayName;

    ConsumerGroupState(String displayName) {
        this.displayName = displayName;
    }

    /** The legal predecessors: any other live state for a live one, because the state is derived; any for Dead. */
    public Set<ConsumerGroupState> validPreviousStates() {
        return switch (this) {
            case EMPTY -> EnumSet.of(ASSIGNING, RECONCILING, STABLE);
            case ASSIGNING -> EnumSet.of(EMPTY, RECONCILING, STABLE);
            case RECONCILING -> EnumSet.of(EMPTY, ASSIGNING, STABLE);
            case STABLE -> EnumSet.of(EMPTY, ASSIGNING, RECONCILING);
            case DEAD -> EnumSet.of(EMPTY, ASSIGNING, RECONCILING, STABLE);
        };
    }

    /** Kafka's name, as ListGroups and ConsumerGroupDescribe report it. */
    @Override
    public String toString() {
        return displayName;
    }
}
