package dev.samsa.coordinator;

import org.apache.kafka.common.record.internal.Record;

/**
 * The state one coordinator keeps for one partition of its internal topic, as Kafka's {@code CoordinatorShard}: built
 * by replaying the partition's log when its leader takes over. Owned by the cluster loop.
 */
public interface CoordinatorShard {

    /** The partition of the internal topic this shard holds. */
    int partition();

    /** The broker that leads the partition and so coordinates its keys. */
    int brokerId();

    /**
     * Applies one record of the log, in offset order; a record with a null key never reaches it.
     *
     * @throws RuntimeException when the record does not decode: the loader skips it and says so
     */
    void replay(long offset, Record record);

    /**
     * Applies one record of a transactional batch of {@code producerId} (Kafka's {@code replay} with a producer id):
     * the record belongs to that producer's open transaction until its marker says COMMIT or ABORT. A shard whose
     * records are never transactional keeps this default.
     *
     * @throws RuntimeException when the record does not decode: the loader skips it and says so
     */
    default void replay(long offset, long producerId, short producerEpoch, Record record) {
        replay(offset, record);
    }

    /**
     * Applies a transaction marker (a COMMIT or ABORT control batch) that the transaction coordinator wrote to this
     * partition for {@code producerId}, in offset order with the records; what the group coordinator needs to make a
     * transaction's offsets committed or drop them (Kafka's {@code replayEndTransactionMarker}).
     */
    default void replayEndTransactionMarker(long offset, long producerId, short producerEpoch, boolean committed) {
    }

    /** The whole log has been replayed: {@code replayed} records applied, {@code skipped} that did not decode. */
    void onLoaded(int replayed, int skipped);
}
