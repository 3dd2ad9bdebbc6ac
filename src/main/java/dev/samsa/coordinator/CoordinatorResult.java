package dev.samsa.coordinator;

import java.util.List;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * What a write operation computed, as Kafka's {@code CoordinatorResult}: the records that change the shard and the
 * answer to give once they are replicated (see {@link CoordinatorRuntime#scheduleWriteOperation}).
 *
 * @param replay when the runtime applies the records to the shard (by {@link CoordinatorShard#replay}, the code that
 *        also loads the shard after a failover)
 * @param producer null for a plain batch; otherwise the records go in one transactional batch of that producer (Kafka's
 *        {@code scheduleTransactionalWriteOperation})
 * @param onCommitted null, or what to run once the records are replicated even when the answer went out before (the
 *        write timed out, COORDINATOR_NOT_AVAILABLE): Kafka's {@code appendFuture}, for work that must follow the
 *        decision and never precede it
 */
public record CoordinatorResult<T>(List<SimpleRecord> records, T response, Replay replay, Producer producer,
                                   Runnable onCommitted) {

    /** When the runtime replays the records of a write into its shard. */
    public enum Replay {
        /** Right after the append, so that the next operation sees them, as Kafka's uncommitted state. */
        AT_ONCE,
        /**
         * Once replicated, and not at all when the write fails: what a read sees is only what was replicated, Samsa's
         * stand-in for Kafka's reads at the last committed offset (OffsetFetch never sees an offset a failover could lose).
         */
        WHEN_COMMITTED,
        /** Never: the operation already changed the shard in memory (Kafka's {@code replayRecords == false}). */
        NEVER
    }

    /**
     * The producer of a transactional batch. Kafka's coordinator writes such a batch at sequence 0 and its log skips
     * the sequence check for a coordinator's appends; Samsa's log checks every producer batch, so {@code baseSequence}
     * continues the producer's last batch on the shard's partition.
     */
    public record Producer(long producerId, short producerEpoch, int baseSequence) {
    }

    public CoordinatorResult {
        records = List.copyOf(records);
        if (replay == null) {
            throw new IllegalArgumentException("A coordinator result needs its replay; got null");
        }
    }

    /** Records replayed at once, Kafka's default. */
    public CoordinatorResult(List<SimpleRecord> records, T response) {
        this(records, response, Replay.AT_ONCE, null, null);
    }

    public CoordinatorResult<T> withReplay(Replay when) {
        return new CoordinatorResult<>(records, response, when, producer, onCommitted);
    }

    public CoordinatorResult<T> inTransaction(Producer transactional) {
        return new CoordinatorResult<>(records, response, replay, transactional, onCommitted);
    }

    public CoordinatorResult<T> whenCommitted(Runnable hook) {
        return new CoordinatorResult<>(records, response, replay, producer, hook);
    }
}
