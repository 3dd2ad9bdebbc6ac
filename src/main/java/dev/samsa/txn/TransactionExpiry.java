package dev.samsa.txn;

import org.apache.kafka.common.protocol.Errors;

/**
 * The two age deadlines (DESIGN.md) of a transactional id, on the cluster clock: an Ongoing transaction's timeout
 * (Kafka's abortTimedOutTransactions) and an idle id's expiration (Kafka's removeExpiredTransactionalIds). Each state
 * has one timer at most, armed on every transition and when a shard loads. Owned by the cluster loop.
 */
final class TransactionExpiry {

    private final TransactionCoordinatorContext context;
    private final TransactionStateManager state;
    private final TransactionEnd end;

    TransactionExpiry(TransactionCoordinatorContext context, TransactionStateManager state, TransactionEnd end) {
        this.context = context;
        this.state = state;
        this.end = end;
    }

    private static String timeoutKey(String transactionalId) {
        return "txn-timeout-" + transactionalId;
    }

    private static String expirationKey(String transactionalId) {
        return "txn-expiration-" + transactionalId;
    }

    /** The one timer each state has: Ongoing its timeout, Empty and Complete* their expiration, Prepare* none. */
    void armTimers(TransactionCoordinatorShard shard, TransactionMetadata m) {
        if (m.state() == TransactionState.ONGOING) {
            armTimeout(shard, m);
        } else {
            context.scheduler().cancel(timeoutKey(m.transactionalId()));
        }
        if (m.state().isExpirationAllowed()) {
            armExpiration(shard, m);
        } else {
            context.scheduler().cancel(expirationKey(m.transactionalId()));
        }
    }

    /** The transactional id is gone from this coordinator (removed, or its shard unloaded): its timers stop. */
    void cancelTimers(String transactionalId) {
        context.scheduler().cancel(timeoutKey(transactionalId));
        context.scheduler().cancel(expirationKey(transactionalId));
    }

    /**
     * An Ongoing transaction is aborted when the cluster clock passes its start plus its timeout, as Kafka's
     * abortTimedOutTransactions finds it (start + timeout < now), so not a millisecond before.
     */
    private void armTimeout(TransactionCoordinatorShard shard, TransactionMetadata m) {
        abortWhenTimedOut(shard, m, m.startTimeMs() + m.timeoutMs() + 1);
    }

    /** A fence that could not be written is tried again a cleanup interval later, as Kafka's next abort scan would. */
    private void abortWhenTimedOut(TransactionCoordinatorShard shard, TransactionMetadata m, long atMs) {
        context.scheduler().schedule(timeoutKey(m.transactionalId()), atMs, () -> {
            if (state.isCurrent(shard, m)) {
                end.fenceAndAbort(shard, m, error -> {
                    if (error != Errors.NONE && state.isCurrent(shard, m)) {
                        abortWhenTimedOut(shard, m, context.scheduler().nowMs()
                                + context.config(shard.brokerId()).abortTimedOutTransactionCleanupIntervalMs());
                    }
                });
            }
        });
    }

    /**
     * A transactional id with no transaction open or ending is removed transactional.id.expiration.ms after its last
     * transition, as Kafka's removeExpiredTransactionalIds finds it (last update <= now - expiration); its next
     * InitProducerId starts afresh with a new producer id.
     */
    private void armExpiration(TransactionCoordinatorShard shard, TransactionMetadata m) {
        long expirationMs = context.config(shard.brokerId()).transactionalIdExpirationMs();
        context.scheduler().schedule(expirationKey(m.transactionalId()), m.lastUpdateTimeMs() + expirationMs, () -> {
            if (state.isCurrent(shard, m)) {
                state.recordTransition(m, m.prepareDead(context.scheduler().nowMs()));
                state.writeTombstone(shard, m.transactionalId());
            }
        });
    }
}
