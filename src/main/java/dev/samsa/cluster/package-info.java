/**
 * The brokers' shared domain, named as Kafka names it: metadata and topics, {@code Partition} (leader, epoch, ISR,
 * high watermark, the leader's view of each follower), the {@code Controller}'s elections and ISR changes,
 * {@code ReplicaManager} (every client read and write of a partition), {@code ReplicaFetcher} (followers pulling from
 * their leader in-process) and the purgatory of delayed operations.
 *
 * <p>The loop contract. Everything here is owned by the cluster loop and touched only from it, so nothing takes a
 * lock. {@link dev.samsa.cluster.ClusterState} builds the controller, the replica manager, the replica fetcher,
 * reassignments, the leader balancer and log retention once per cluster; they keep no state of their own (it lives in
 * {@code Partition}, {@code ClusterMetadata} and the scheduler's timers). Time is the cluster clock, read through the
 * state; wall time comes in only through the loop's scheduler.
 *
 * <p>Handlers call in with plain values and get small records back: the domain takes no request or response message
 * of kafka-clients (its record classes are fine). A request that must wait is parked by its handler in
 * {@link dev.samsa.cluster.DelayedOperations}, and the domain completes it by calling
 * {@code checkAndComplete(partition)} when something it waits on moves there: the high watermark
 * ({@code ReplicaManager.maybeIncrementLeaderHighWatermark}), the ISR, or the partition's leadership; or its timer
 * does.
 */
package dev.samsa.cluster;
