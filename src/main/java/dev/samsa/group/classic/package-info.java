/**
 * The classic consumer-group protocol (JoinGroup, SyncGroup, Heartbeat, LeaveGroup), as Kafka's group coordinator runs
 * it: {@link dev.samsa.group.classic.ClassicGroup} and its members, one object per request phase
 * ({@link dev.samsa.group.classic.ClassicGroupJoin}, {@link dev.samsa.group.classic.ClassicGroupSync},
 * {@link dev.samsa.group.classic.ClassicGroupLiveness}), and the one rebalance engine they all call,
 * {@link dev.samsa.group.classic.ClassicGroupRebalancer} (rebalances, the session, join and sync timers, and the one
 * way a member is removed).
 *
 * <p>Threading: on the cluster loop, like the rest of {@code group/}.
 */
package dev.samsa.group.classic;
