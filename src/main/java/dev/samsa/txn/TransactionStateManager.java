package dev.samsa.txn;

import dev.samsa.coordinator.CoordinatorResult;
import dev.samsa.event.TxnStateChanged;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * Where transaction state lives, as Kafka's {@code TransactionStateManager}: writes each transition as its
 * transactional id's record through the context's one write (applied to the shard at once, answered once replicated)
 * and records it on the timeline. Owned by the cluster loop.
 */
final class TransactionStateManager {

    private final TransactionCoordinatorContext context;

    TransactionStateManager(TransactionCoordinatorContext context) {
        this.context = context;
    }

    /** Whether the shard is still loaded and {@code txn} is still the state of its transactional id. */
    boolean isCurrent(TransactionCoordinatorShard shard, TransactionMetadata txn) {
        return context.isLoaded(shard) && txn.equals(shard.get(txn.transactionalId()));
    }

    /**
     * Writes {@code next} as its transactional id's record, applied to the shard at once (so the next request sees it);
     * {@code done} hears NONE once it is replicated, or the error.
     */
    void write(TransactionCoordinatorShard shard, TransactionMetadata next, Consumer<Errors> done) {
        write(shard, () -> next, null, done);
    }

    /**
     * As {@link #write(TransactionCoordinatorShard, TransactionMetadata, Consumer)}; {@code next} is computed only when
     * the write may go (so a refused write leaves no trace), and {@code onCommitted}, if not null, runs once the record
     * is replicated even when {@code done} heard the write time out.
     */
    void write(TransactionCoordinatorShard shard, Supplier<TransactionMetadata> next, Runnable onCommitted,
               Consumer<Errors> done) {
        TransactionMetadata[] written = new TransactionMetadata[1];
        writeRecord(shard, () -> {
            written[0] = next.get();
            return TransactionRecords.transaction(context.scheduler().nowMs(), written[0]);
        }, onCommitted, error -> {
            // A test's fault may crash or isolate this coordinator the moment the state is replicated; then it has lost
            // the transaction before it could answer, as Kafka's append callback finds the coordinator epoch moved.
            if (error == Errors.NONE && context.stateReplicated(written[0].transactionalId(), written[0].state().toString(),
                    shard.brokerId()) && !context.isLoaded(shard)) {
                done.accept(Errors.NOT_COORDINATOR);
                return;
            }
            done.accept(error);
        });
    }

    /** Removes an expired transactional id from the log: its tombstone. */
    void writeTombstone(TransactionCoordinatorShard shard, String transactionalId) {
        writeRecord(shard, () -> TransactionRecords.tombstone(context.scheduler().nowMs(), transactionalId), null, error -> {
        });
    }

    private void writeRecord(TransactionCoordinatorShard shard, Supplier<SimpleRecord> record,
                             Runnable onCommitted, Consumer<Errors> done) {
        context.write(shard, s -> new CoordinatorResult<Void>(List.of(record.get()), null).whenCommitted(onCommitted),
                (nothing, error) -> done.accept(error));
    }

    void recordTransition(TransactionMetadata previous, TransactionMetadata current) {
        context.timeline().record(new TxnStateChanged(current.transactionalId(),
                previous == null ? TransactionState.EMPTY.toString() : previous.state().toString(), current.state().toString(),
                current.producerId(), current.producerEpoch(), current.partitions().stream().map(TopicPartition::toString).toList()));
    }
}
