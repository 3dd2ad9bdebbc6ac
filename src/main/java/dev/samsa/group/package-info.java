/**
 * The group coordinator: one shard of groups and offsets per {@code __consumer_offsets} partition, on the shared
 * {@link dev.samsa.coordinator.CoordinatorRuntime} (routing, load and unload, replicated writes), the classic protocol
 * ({@code classic/}), the KIP-848 consumer protocol ({@code modern/consumer/}, its assignors in {@code modern/}) and
 * committed offsets, including those a transaction holds pending until its marker. Both kinds of group are a
 * {@link dev.samsa.group.Group}; a group id names one group of one kind.
 *
 * <p>Threading: everything here runs on the cluster loop, one event at a time, and takes no locks. What calls in, all
 * on the loop: the handlers (one call per JoinGroup, SyncGroup, Heartbeat, LeaveGroup, OffsetCommit, ...), a closed
 * client connection (handed to the loop by the network), the runtime loading or unloading a shard when its partition's
 * leader changes, the transaction markers a leader appends to a {@code __consumer_offsets} partition (the
 * {@link dev.samsa.cluster.ReplicaManager.TxnMarkerListener} it registers), the inspection API (pure reads: it never loads a shard or arms a timer) through
 * {@code ClusterLoop.call}, and the timers this package armed. Nothing here blocks or waits: a request that must wait
 * (a JoinGroup until the join phase ends, a SyncGroup until the leader's assignment is replicated) parks its callback,
 * which a later request, timer or replication answers on the loop.
 *
 * <p>What it may call: {@code coordinator/}, {@code cluster/} (metadata, the purgatory),
 * {@code log/}, {@code event/} (the timeline) and {@code time/}. Time comes only from the
 * {@link dev.samsa.time.Scheduler}: cluster time for every deadline, and the loop's wall time for the liveness rule of
 * DESIGN.md, never the wall clock itself.
 */
package dev.samsa.group;
