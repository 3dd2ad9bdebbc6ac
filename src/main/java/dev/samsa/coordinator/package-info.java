/**
 * The runtime both coordinators share (DESIGN.md "Coordinators"): a key's partition of the internal topic, one shard
 * per partition loaded from the log when the partition gets a leader and unloaded when it loses it, the internal
 * topic created on the first FindCoordinator that needs it, and the one write ({@code scheduleWriteOperation}) by
 * which records reach the topic, answered only once replicated, with Kafka's coordinator error mapping.
 *
 * <p>Threading: everything here runs on the cluster loop and takes no locks; a write waiting for replication is parked
 * in the cluster's purgatory and answered there.
 *
 * <p>What it may call: {@code cluster/}, {@code log/}, {@code event/} and {@code time/}; {@code group/} (and the
 * transaction coordinator) build on it.
 */
package dev.samsa.coordinator;
