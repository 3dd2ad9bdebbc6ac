package dev.samsa.txn;

import dev.samsa.coordinator.CoordinatorShard;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.record.internal.Record;

/**
 * The transactional ids of one {@code __transaction_state} partition, held by the broker that leads it and rebuilt by
 * replaying that broker's replica when it takes over (Kafka's {@code TransactionStateManager}, one partition of it).
 * Owned by the cluster loop.
 */
final class TransactionCoordinatorShard implements CoordinatorShard {

    /** Hears of each transition the live shard applies (not those replayed while loading). */
    interface TransitionListener {
        void onTransition(TransactionCoordinatorShard shard, TransactionMetadata previous, TransactionMetadata current);
    }

    private final int partition;
    private final int brokerId;
    private final int coordinatorEpoch;
    private final TransitionListener listener;
    private final Map<String, TransactionMetadata> transactions = new TreeMap<>();
    private boolean loaded;

    /** @param coordinatorEpoch the leader epoch of the partition when this broker took it, which fences older coordinators' markers */
    TransactionCoordinatorShard(int partition, int brokerId, int coordinatorEpoch, TransitionListener listener) {
        this.partition = partition;
        this.brokerId = brokerId;
        this.coordinatorEpoch = coordinatorEpoch;
        this.listener = listener;
    }

    @Override
    public int partition() {
        return partition;
    }

    @Override
    public int brokerId() {
        return brokerId;
    }

    int coordinatorEpoch() {
        return coordinatorEpoch;
    }

    TransactionMetadata get(String transactionalId) {
        return transactions.get(transactionalId);
    }

    Map<String, TransactionMetadata> transactions() {
        return Collections.unmodifiableMap(transactions);
    }

    /** The last record of a transactional id is its whole state; a tombstone removes it. */
    @Override
    public void replay(long offset, Record record) {
        TransactionRecords.Decoded d = TransactionRecords.decode(record);
        TransactionMetadata previous = d.metadata() == null
                ? transactions.remove(d.transactionalId())
                : transactions.put(d.transactionalId(), d.metadata());
        if (loaded) {
            listener.onTransition(this, previous, d.metadata());
        }
    }

    @Override
    public void onLoaded(int replayed, int skipped) {
        loaded = true;
    }
}
