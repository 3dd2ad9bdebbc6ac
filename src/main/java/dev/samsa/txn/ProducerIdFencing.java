package dev.samsa.txn;

import dev.samsa.txn.TransactionCoordinator.InitResult;
import java.util.function.Consumer;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * InitProducerId with a transactional id, as Kafka's {@code handleInitProducerId}: the producer id and epoch a producer
 * gets, whose bump fences the producer that held the id before. Owned by the cluster loop.
 */
final class ProducerIdFencing {

    private final TransactionCoordinatorContext context;
    private final TransactionStateManager state;
    private final TransactionEnd end;

    ProducerIdFencing(TransactionCoordinatorContext context, TransactionStateManager state, TransactionEnd end) {
        this.context = context;
        this.state = state;
        this.end = end;
    }

    /**
     * A new id gets a producer id and epoch 0; a known one gets its epoch bumped (a new producer id once the epochs run
     * out), which fences the producer that held it. An open transaction is aborted first, with the epoch bumped, and
     * the caller is told CONCURRENT_TRANSACTIONS to retry; a transaction still writing its markers answers the same. A
     * producer that names its producer id and epoch (KIP-360, recovering from an error) keeps its producer id if it is
     * still the current one, or gets PRODUCER_FENCED.
     */
    void initProducerId(int brokerId, String transactionalId, int timeoutMs, long expectedProducerId,
                        short expectedEpoch, Consumer<InitResult> respond) {
        if (transactionalId.isEmpty()) {
            respond.accept(InitResult.failed(Errors.INVALID_REQUEST));
            return;
        }
        if (timeoutMs <= 0 || timeoutMs > context.config(brokerId).maxTimeoutMs()) {
            respond.accept(InitResult.failed(Errors.INVALID_TRANSACTION_TIMEOUT));
            return;
        }
        TransactionCoordinatorShard shard;
        try {
            // A client that skipped FindCoordinator creates the topic too, and learns NOT_COORDINATOR unless it guessed right.
            context.findCoordinator(brokerId, transactionalId);
            shard = context.activeShard(brokerId, transactionalId);
        } catch (ApiException e) {
            respond.accept(InitResult.failed(Errors.forException(e)));
            return;
        }
        TransactionMetadata m = shard.get(transactionalId);
        if (m == null) {
            m = TransactionMetadata.fresh(transactionalId, context.nextProducerId(), timeoutMs, context.scheduler().nowMs());
        }
        boolean expected = expectedProducerId != RecordBatch.NO_PRODUCER_ID;
        if (expected && !isValidProducerId(m, expectedProducerId, expectedEpoch)) {
            respond.accept(InitResult.failed(Errors.PRODUCER_FENCED));
            return;
        }
        TransactionMetadata next;
        switch (m.state()) {
            case PREPARE_COMMIT, PREPARE_ABORT -> {
                respond.accept(InitResult.failed(Errors.CONCURRENT_TRANSACTIONS));
                return;
            }
            case ONGOING -> {
                // The bumped epoch is never handed out: the producer retries and bumps it once more.
                end.fenceAndAbort(shard, m, error -> respond.accept(InitResult.failed(error == Errors.NONE ? Errors.CONCURRENT_TRANSACTIONS : error)));
                return;
            }
            case EMPTY, COMPLETE_COMMIT, COMPLETE_ABORT -> {
                if (m.isEpochExhausted() && (!expected || expectedEpoch == m.producerEpoch())) {
                    next = m.prepareProducerIdRotation(context.nextProducerId(), timeoutMs, context.scheduler().nowMs(), expected);
                } else {
                    next = prepareIncrementProducerEpoch(m, timeoutMs, expected, expectedEpoch);
                    if (next == null) {
                        respond.accept(InitResult.failed(Errors.PRODUCER_FENCED));
                        return;
                    }
                }
            }
            default -> throw new IllegalStateException("Transactional id " + transactionalId + " is " + m.state()
                    + ", a state it can never be stored in");
        }
        TransactionMetadata initialised = next;
        state.write(shard, next, error -> respond.accept(error == Errors.NONE
                ? new InitResult(initialised.producerId(), initialised.producerEpoch(), Errors.NONE)
                : InitResult.failed(error)));
    }

    /**
     * Kafka's rule for a producer that names its id and epoch: fenced unless the id has no epoch yet, the producer id is
     * the current one, or it is the previous one with its epochs exhausted (a retry after a rotation).
     */
    private static boolean isValidProducerId(TransactionMetadata m, long producerId, short epoch) {
        return m.producerEpoch() == RecordBatch.NO_PRODUCER_EPOCH || producerId == m.producerId()
                || (producerId == m.prevProducerId() && TransactionMetadata.isEpochExhausted(epoch));
    }

    /** Kafka's prepareIncrementProducerEpoch; null for PRODUCER_FENCED. */
    private TransactionMetadata prepareIncrementProducerEpoch(TransactionMetadata m, int timeoutMs, boolean expected, short expectedEpoch) {
        if (m.isEpochExhausted()) {
            throw new IllegalStateException("Cannot allocate any more producer epochs for producer id " + m.producerId()
                    + " of transactional id " + m.transactionalId());
        }
        short bumped = (short) (m.producerEpoch() + 1);
        if (!expected) {
            return m.prepareInitProducerId(bumped, RecordBatch.NO_PRODUCER_EPOCH, timeoutMs, context.scheduler().nowMs());
        }
        if (m.producerEpoch() == RecordBatch.NO_PRODUCER_EPOCH || expectedEpoch == m.producerEpoch()) {
            return m.prepareInitProducerId(bumped, m.producerEpoch(), timeoutMs, context.scheduler().nowMs());
        }
        if (expectedEpoch == m.lastProducerEpoch()) {
            // A retry of a bump that succeeded: the same answer again.
            return m.prepareInitProducerId(m.producerEpoch(), m.lastProducerEpoch(), timeoutMs, context.scheduler().nowMs());
        }
        return null;
    }
}
