package dev.samsa.log;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.record.RecordBatch;

/**
 * Idempotent-producer state of one partition, the non-transactional part of Kafka's
 * {@code ProducerStateManager}: per producer id, its epoch and its last
 * {@value #NUM_BATCHES_TO_RETAIN} batches, enough to recognise a retried batch and to reject a
 * sequence gap. Rebuilt from the log on recovery, so retries are still caught after a restart.
 *
 * <p>Not thread-safe: the cluster loop owns the log.
 */
final class ProducerStateManager {

    /** Kafka keeps five, matching the producer's {@code max.in.flight.requests.per.connection} limit. */
    static final int NUM_BATCHES_TO_RETAIN = 5;

    record BatchMetadata(int firstSeq, int lastSeq, long firstOffset, long lastOffset) {
    }

    /** One producer's epoch and its latest batches, oldest first. */
    record ProducerStateEntry(short producerEpoch, List<BatchMetadata> batches) {

        int lastSeq() {
            return batches.isEmpty() ? RecordBatch.NO_SEQUENCE : batches.get(batches.size() - 1).lastSeq();
        }

        long lastOffset() {
            return batches.isEmpty() ? -1L : batches.get(batches.size() - 1).lastOffset();
        }

        ProducerStateEntry withBatch(short epoch, BatchMetadata batch) {
            List<BatchMetadata> kept = new ArrayList<>(epoch == producerEpoch ? batches : List.of());
            kept.add(batch);
            if (kept.size() > NUM_BATCHES_TO_RETAIN) {
                kept.remove(0);
            }
            return new ProducerStateEntry(epoch, List.copyOf(kept));
        }
    }

    private final String partition;
    private final Map<Long, ProducerStateEntry> producers = new HashMap<>();

    ProducerStateManager(String partition) {
        this.partition = partition;
    }

    /** The earlier append of {@code batch} if it is a retry of one of the producer's cached batches. */
    Optional<BatchMetadata> findDuplicate(RecordBatch batch) {
        ProducerStateEntry entry = producers.get(batch.producerId());
        if (!batch.hasProducerId() || entry == null || entry.producerEpoch() != batch.producerEpoch()) {
            return Optional.empty();
        }
        return entry.batches().stream()
                .filter(b -> b.firstSeq() == batch.baseSequence() && b.lastSeq() == batch.lastSequence())
                .findFirst();
    }

    /** Starts validating the batches of one append; nothing changes until {@link Append#commit()}. */
    Append newAppend() {
        return new Append();
    }

    /** Records a batch already in the log (recovery, replication) without validating it. */
    void update(RecordBatch batch) {
        if (batch.hasProducerId()) {
            ProducerStateEntry current = producers.getOrDefault(batch.producerId(),
                    new ProducerStateEntry(batch.producerEpoch(), List.of()));
            producers.put(batch.producerId(), current.withBatch(batch.producerEpoch(), metadata(batch,
                    batch.baseOffset(), batch.lastOffset())));
        }
    }

    /**
     * Forgets producers whose last batch is below the new log start offset, as Kafka does after
     * DeleteRecords or retention; such a producer is then unknown and may continue at any sequence.
     */
    void removeBefore(long logStartOffset) {
        producers.values().removeIf(entry -> entry.lastOffset() < logStartOffset);
    }

    void clear() {
        producers.clear();
    }

    Optional<ProducerStateEntry> entry(long producerId) {
        return Optional.ofNullable(producers.get(producerId));
    }

    private static BatchMetadata metadata(RecordBatch batch, long firstOffset, long lastOffset) {
        return new BatchMetadata(batch.baseSequence(), batch.lastSequence(), firstOffset, lastOffset);
    }

    /** Kafka's {@code ProducerAppendInfo}: the producer states one append would leave. */
    final class Append {
        private final Map<Long, ProducerStateEntry> updated = new HashMap<>();

        /**
         * Checks the epoch and sequence of a batch about to get offsets {@code firstOffset..lastOffset}.
         *
         * @throws InvalidProducerEpochException if the producer has been fenced by a newer epoch
         * @throws OutOfOrderSequenceException if the sequence does not continue the last batch
         */
        void append(RecordBatch batch, long firstOffset, long lastOffset) {
            if (!batch.hasProducerId()) {
                return;
            }
            long producerId = batch.producerId();
            ProducerStateEntry current = updated.containsKey(producerId) ? updated.get(producerId) : producers.get(producerId);
            if (current != null) {
                throwIfInvalidEpoch(batch, current, firstOffset);
                throwIfOutOfSequence(batch, current, firstOffset);
            }
            ProducerStateEntry base = current != null ? current : new ProducerStateEntry(batch.producerEpoch(), List.of());
            updated.put(producerId, base.withBatch(batch.producerEpoch(), metadata(batch, firstOffset, lastOffset)));
        }

        void commit() {
            producers.putAll(updated);
        }

        private void throwIfInvalidEpoch(RecordBatch batch, ProducerStateEntry current, long offset) {
            if (batch.producerEpoch() < current.producerEpoch()) {
                throw new InvalidProducerEpochException(String.format("Epoch of producer %d at offset %d in %s is %d,"
                        + " which is smaller than the last seen epoch %d", batch.producerId(), offset, partition,
                        batch.producerEpoch(), current.producerEpoch()));
            }
        }

        private void throwIfOutOfSequence(RecordBatch batch, ProducerStateEntry current, long offset) {
            int firstSeq = batch.baseSequence();
            if (batch.producerEpoch() != current.producerEpoch()) {
                if (firstSeq != 0) {
                    throw new OutOfOrderSequenceException(String.format("Invalid sequence number for new epoch of"
                            + " producer %d at offset %d in %s: %d (request epoch), %d (seq. number), %d (current"
                            + " producer epoch)", batch.producerId(), offset, partition, batch.producerEpoch(),
                            firstSeq, current.producerEpoch()));
                }
            } else if (!inSequence(current.lastSeq(), firstSeq)) {
                throw new OutOfOrderSequenceException(String.format("Out of order sequence number for producer %d"
                        + " at offset %d in %s: %d (incoming seq. number), %d (current end sequence number)",
                        batch.producerId(), offset, partition, firstSeq, current.lastSeq()));
            }
        }

        private boolean inSequence(int lastSeq, int nextSeq) {
            return nextSeq == lastSeq + 1L || (nextSeq == 0 && lastSeq == Integer.MAX_VALUE);
        }
    }
}
