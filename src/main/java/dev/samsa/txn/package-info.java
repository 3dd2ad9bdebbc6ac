/**
 * The transaction coordinator: one shard of transactional ids per {@code __transaction_state} partition, on the shared
 * {@link dev.samsa.coordinator.CoordinatorRuntime} (routing, load and unload, replicated writes), the transaction state
 * machine ({@link dev.samsa.txn.TransactionState}, {@link dev.samsa.txn.TransactionMetadata}) and the markers that
 * end a transaction on each of its partitions.
 *
 * <p>Threading: everything here runs on the cluster loop, one event at a time, and takes no locks. What calls in, all
 * on the loop: the handlers (InitProducerId, AddPartitionsToTxn, AddOffsetsToTxn, EndTxn, and Produce to verify a
 * transactional batch), the runtime loading or unloading a shard when its partition's leader changes, the inspection
 * API (pure reads), the purgatory when a marker is replicated, and the timers this package armed: a transaction's
 * timeout on the cluster clock (an age deadline), marker retries on wall time so that a manual clock never stalls them.
 *
 * <p>What it may call: {@code coordinator/}, {@code event/} and {@code time/}; the cluster only through
 * {@link dev.samsa.txn.TransactionCoordinatorContext}, whose cluster implementation inside
 * {@link dev.samsa.txn.TransactionCoordinator} is the one place here that knows {@code cluster/} (metadata, the replica
 * manager's marker appends, the purgatory, faults). A unit test gives the coordinator a context over a
 * {@code MockScheduler} instead.
 */
package dev.samsa.txn;
