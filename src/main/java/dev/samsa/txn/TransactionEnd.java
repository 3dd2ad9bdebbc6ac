package dev.samsa.txn;

import dev.samsa.txn.TransactionCoordinator.EndResult;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * How a transaction ends, as Kafka's {@code TransactionCoordinator.endTransaction}: EndTxn from the client (transaction
 * version 1 keeps the epoch, version 2 bumps it at every end) and the coordinator's own abort of a transaction it
 * fences. PrepareCommit or PrepareAbort is written and replicated, then the {@link TransactionMarkerWriter} writes the
 * markers, then CompleteCommit or CompleteAbort. Owned by the cluster loop.
 */
final class TransactionEnd {

    private final TransactionCoordinatorContext context;
    private final TransactionStateManager state;
    private final TransactionMarkerWriter markers;

    TransactionEnd(TransactionCoordinatorContext context, TransactionStateManager state, TransactionMarkerWriter markers) {
        this.context = context;
        this.state = state;
        this.markers = markers;
    }

    /**
     * EndTxn from the client: Ongoing moves to PrepareCommit or PrepareAbort, answered once that is replicated; then
     * the markers are written and the transaction completes. {@code clientTransactionVersion} 2 (EndTxn v5+) takes
     * Kafka's endTransaction with an epoch bump, anything lower its endTransactionWithTV1.
     */
    void endTransaction(int brokerId, String transactionalId, long producerId, short producerEpoch, boolean commit,
                        short clientTransactionVersion, Consumer<EndResult> respond) {
        if (transactionalId == null || transactionalId.isEmpty()) {
            respond.accept(EndResult.of(Errors.INVALID_REQUEST));
            return;
        }
        TransactionCoordinatorShard shard;
        try {
            shard = context.activeShard(brokerId, transactionalId);
        } catch (ApiException e) {
            respond.accept(EndResult.of(Errors.forException(e)));
            return;
        }
        TransactionMetadata m = shard.get(transactionalId);
        if (clientTransactionVersion >= TransactionMetadata.TRANSACTION_VERSION_2) {
            endTransactionWithEpochBump(shard, transactionalId, m, producerId, producerEpoch, commit, respond);
        } else {
            endTransactionWithTV1(shard, transactionalId, m, producerId, producerEpoch, commit, clientTransactionVersion,
                    error -> respond.accept(EndResult.of(error)));
        }
    }

    /**
     * Kafka's endTransactionWithTV1: no epoch bump. A retry of a completed end answers NONE, of one still writing
     * markers CONCURRENT_TRANSACTIONS; the other way round, or from Empty, INVALID_TXN_STATE.
     */
    private void endTransactionWithTV1(TransactionCoordinatorShard shard, String transactionalId, TransactionMetadata m,
                                       long producerId, short producerEpoch, boolean commit, short clientTransactionVersion,
                                       Consumer<Errors> respond) {
        if (m == null || m.producerId() != producerId) {
            respond.accept(Errors.INVALID_PRODUCER_ID_MAPPING);
            return;
        }
        if (producerEpoch != m.producerEpoch()) {
            respond.accept(Errors.PRODUCER_FENCED);
            return;
        }
        TransactionState asked = commit ? TransactionState.PREPARE_COMMIT : TransactionState.PREPARE_ABORT;
        switch (m.state()) {
            case ONGOING -> prepareAndWriteMarkers(shard, m.prepareAbortOrCommit(asked, context.scheduler().nowMs(), clientTransactionVersion), respond);
            case COMPLETE_COMMIT -> respond.accept(commit ? Errors.NONE : Errors.INVALID_TXN_STATE);
            case COMPLETE_ABORT -> respond.accept(commit ? Errors.INVALID_TXN_STATE : Errors.NONE);
            case PREPARE_COMMIT -> respond.accept(commit ? Errors.CONCURRENT_TRANSACTIONS : Errors.INVALID_TXN_STATE);
            case PREPARE_ABORT -> respond.accept(commit ? Errors.INVALID_TXN_STATE : Errors.CONCURRENT_TRANSACTIONS);
            case EMPTY -> respond.accept(Errors.INVALID_TXN_STATE);
            default -> throw new IllegalStateException("Transactional id " + transactionalId + " is " + m.state()
                    + ", a state it can never be stored in");
        }
    }

    /**
     * Kafka's endTransaction for transaction version 2 (KIP-890 part 2): every end bumps the epoch, and the markers
     * carry the bumped one; when the epoch is exhausted the completion moves to a new producer id at epoch 0. The
     * answer names the producer id and epoch of the completed transaction, which the client uses from then on. A
     * client's retry is recognised by its epoch being one below the stored one (or the last epoch of the producer id
     * just rotated away) and answered NONE when the end it repeats is done; the same epoch against a completed
     * transaction is a new end, which for an abort means an abort of no transaction (allowed from Empty too, where
     * the client aborts before anything reached the coordinator); a commit of none is INVALID_TXN_STATE.
     */
    private void endTransactionWithEpochBump(TransactionCoordinatorShard shard, String transactionalId, TransactionMetadata m,
                                             long producerId, short producerEpoch, boolean commit, Consumer<EndResult> respond) {
        if (m == null) {
            respond.accept(EndResult.of(Errors.INVALID_PRODUCER_ID_MAPPING));
            return;
        }
        boolean retryOnOverflow = m.prevProducerId() == producerId && producerEpoch == Short.MAX_VALUE - 1 && m.producerEpoch() == 0;
        boolean retryOnEpochBump = m.producerEpoch() == producerEpoch + 1;
        boolean validEpoch = switch (m.state()) {
            case ONGOING, EMPTY -> producerEpoch == m.producerEpoch();
            case PREPARE_COMMIT, PREPARE_ABORT -> retryOnEpochBump;
            case COMPLETE_COMMIT, COMPLETE_ABORT -> retryOnEpochBump || retryOnOverflow || producerEpoch == m.producerEpoch();
            default -> throw new IllegalStateException("Transactional id " + transactionalId + " is " + m.state()
                    + ", a state it can never be stored in");
        };
        if (m.producerId() != producerId && !retryOnOverflow) {
            respond.accept(EndResult.of(Errors.INVALID_PRODUCER_ID_MAPPING));
            return;
        }
        if (!validEpoch) {
            respond.accept(EndResult.of(Errors.PRODUCER_FENCED));
            return;
        }
        boolean retry = retryOnEpochBump || retryOnOverflow;
        EndResult done = new EndResult(Errors.NONE, m.producerId(), m.producerEpoch());
        EndResult invalid = EndResult.of(Errors.INVALID_TXN_STATE);
        switch (m.state()) {
            case ONGOING -> prepareWithEpochBump(shard, m, commit ? TransactionState.PREPARE_COMMIT : TransactionState.PREPARE_ABORT,
                    false, respond);
            case COMPLETE_COMMIT -> {
                if (commit) {
                    respond.accept(retry ? done : invalid);
                } else if (retry) {
                    respond.accept(invalid);
                } else {
                    prepareWithEpochBump(shard, m, TransactionState.PREPARE_ABORT, true, respond);
                }
            }
            case COMPLETE_ABORT -> {
                if (commit) {
                    respond.accept(invalid);
                } else if (retry) {
                    respond.accept(done);
                } else {
                    prepareWithEpochBump(shard, m, TransactionState.PREPARE_ABORT, true, respond);
                }
            }
            case PREPARE_COMMIT -> respond.accept(commit ? EndResult.of(Errors.CONCURRENT_TRANSACTIONS) : invalid);
            case PREPARE_ABORT -> respond.accept(commit ? invalid : EndResult.of(Errors.CONCURRENT_TRANSACTIONS));
            case EMPTY -> {
                if (commit) {
                    respond.accept(invalid);
                } else {
                    prepareWithEpochBump(shard, m, TransactionState.PREPARE_ABORT, true, respond);
                }
            }
            default -> throw new IllegalStateException("Transactional id " + transactionalId + " is " + m.state()
                    + ", a state it can never be stored in");
        }
    }

    /** PrepareCommit or PrepareAbort with the epoch bumped; the answer names what the completion will hold. */
    private void prepareWithEpochBump(TransactionCoordinatorShard shard, TransactionMetadata m, TransactionState next,
                                      boolean noPartitionAdded, Consumer<EndResult> respond) {
        long nextProducerId = m.isEpochExhausted() ? context.nextProducerId() : RecordBatch.NO_PRODUCER_ID;
        TransactionMetadata prepared = m.prepareAbortOrCommitWithEpochBump(next, nextProducerId, context.scheduler().nowMs(), noPartitionAdded);
        TransactionMetadata completed = prepared.prepareComplete(context.scheduler().nowMs());
        prepareAndWriteMarkers(shard, prepared, error -> respond.accept(error == Errors.NONE
                ? new EndResult(Errors.NONE, completed.producerId(), completed.producerEpoch()) : EndResult.of(error)));
    }

    /**
     * Fences the producer of an Ongoing transaction and aborts it (Kafka's prepareFenceProducerEpoch followed by an
     * abort that is not from the client): the PrepareAbort written carries the bumped epoch.
     */
    void fenceAndAbort(TransactionCoordinatorShard shard, TransactionMetadata ongoing, Consumer<Errors> done) {
        prepareAndWriteMarkers(shard, () -> {
            // Computed only when the write may go: a refused one fences nothing, and the timeline must not say so.
            TransactionMetadata fenced = ongoing.prepareFenceProducerEpoch();
            state.recordTransition(ongoing, fenced);
            // As Kafka, the abort takes the cluster's transaction version, not the client's. With version 2 the bump of
            // the abort is the fence's own (Kafka drops the pending fence and lets the abort bump), so either way the
            // markers and the producer end one epoch up.
            return context.transactionVersion() >= TransactionMetadata.TRANSACTION_VERSION_2
                    ? ongoing.prepareAbortOrCommitWithEpochBump(TransactionState.PREPARE_ABORT, RecordBatch.NO_PRODUCER_ID,
                            context.scheduler().nowMs(), false)
                    : fenced.prepareAbortOrCommit(TransactionState.PREPARE_ABORT, context.scheduler().nowMs(),
                            ongoing.clientTransactionVersion());
        }, done);
    }

    /**
     * Writes {@code prepared} (PrepareCommit or PrepareAbort), answers {@code done} once it is replicated, then writes
     * the markers. The markers wait for the replication even when the answer could not (the write timed out), so that
     * no marker is ever written for a decision that a failover could lose.
     */
    private void prepareAndWriteMarkers(TransactionCoordinatorShard shard, TransactionMetadata prepared, Consumer<Errors> done) {
        prepareAndWriteMarkers(shard, () -> prepared, done);
    }

    private void prepareAndWriteMarkers(TransactionCoordinatorShard shard, Supplier<TransactionMetadata> prepare,
                                        Consumer<Errors> done) {
        TransactionMetadata[] prepared = new TransactionMetadata[1];
        state.write(shard, () -> prepared[0] = prepare.get(), () -> writeMarkers(shard, prepared[0]), done);
    }

    /** Writes the markers of a replicated PrepareCommit or PrepareAbort, then completes the transaction. */
    void writeMarkers(TransactionCoordinatorShard shard, TransactionMetadata prepared) {
        markers.writeMarkers(prepared, shard.coordinatorEpoch(), txn -> state.isCurrent(shard, txn), () -> complete(shard, prepared));
    }

    /** Every marker is written: CompleteCommit or CompleteAbort, retried while the write times out. */
    private void complete(TransactionCoordinatorShard shard, TransactionMetadata prepared) {
        if (!state.isCurrent(shard, prepared)) {
            return;
        }
        state.write(shard, prepared.prepareComplete(context.scheduler().nowMs()), error -> {
            if (error == Errors.COORDINATOR_NOT_AVAILABLE && context.isLoaded(shard)) {
                context.scheduler().scheduleWall("txn-complete-retry-" + prepared.transactionalId(),
                        TransactionMarkerWriter.RETRY_BACKOFF_MS, () -> complete(shard, prepared));
            }
        });
    }
}
