package dev.samsa.log;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;

import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.InvalidTxnStateException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.TransactionCoordinatorFencedException;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * Producer state of one partition, as Kafka's {@code ProducerStateManager}: per producer id, its epoch, its last
 * {@value #NUM_BATCHES_TO_RETAIN} batches (enough to recognise a retried batch and to reject a sequence gap), the
 * coordinator epoch of its last transaction marker, its last timestamp and the first offset of its ongoing
 * transaction; and, for the partition, the transactions that hold back the last stable offset.
 *
 * <p>Kafka keeps this in {@code .snapshot} files; Samsa rebuilds it from the log on open and on truncation, as it does
 * its indexes, so after a crash or a leader change the new leader knows the open transactions.
 *
 * <p>Not thread-safe: the cluster loop owns the log.
 */
final class ProducerStateManager {

    /** Kafka keeps five, matching the producer's {@code max.in.flight.requests.per.connection} limit. */
    static final int NUM_BATCHES_TO_RETAIN = 5;

    record BatchMetadata(int firstSeq, int lastSeq, long firstOffset, long lastOffset) {
    }

    /** A transaction whose marker is in the log: offsets {@code firstOffset..lastOffset}, the marker last. */
    record CompletedTxn(long producerId, long firstOffset, long lastOffset, boolean aborted) {
    }

    /** One producer's state; its batches oldest first. */
    record ProducerStateEntry(short producerEpoch, List<BatchMetadata> batches, int coordinatorEpoch,
                              long lastTimestamp, OptionalLong currentTxnFirstOffset) {

        static final ProducerStateEntry EMPTY = new ProducerStateEntry(RecordBatch.NO_PRODUCER_EPOCH, List.of(), -1,
                RecordBatch.NO_TIMESTAMP, OptionalLong.empty());

        int lastSeq() {
            return batches.isEmpty() ? RecordBatch.NO_SEQUENCE : batches.get(batches.size() - 1).lastSeq();
        }

        long lastOffset() {
            return batches.isEmpty() ? -1L : batches.get(batches.size() - 1).lastOffset();
        }

        /** A new epoch forgets the batches of the old one, as Kafka's {@code maybeUpdateProducerEpoch}. */
        ProducerStateEntry withBatch(short epoch, BatchMetadata batch, long timestamp, OptionalLong txnFirstOffset) {
            List<BatchMetadata> kept = new ArrayList<>(epoch == producerEpoch ? batches : List.of());
            kept.add(batch);
            if (kept.size() > NUM_BATCHES_TO_RETAIN) {
                kept.remove(0);
            }
            return new ProducerStateEntry(epoch, List.copyOf(kept), coordinatorEpoch, timestamp, txnFirstOffset);
        }

        ProducerStateEntry withMarker(short epoch, int markerCoordinatorEpoch, long timestamp) {
            return new ProducerStateEntry(epoch, epoch == producerEpoch ? batches : List.of(), markerCoordinatorEpoch,
                    timestamp, OptionalLong.empty());
        }
    }

    private final String partition;
    private final Map<Long, ProducerStateEntry> producers = new HashMap<>();
    /** Kafka's ongoingTxns: first offset of each transaction without a marker yet, to its producer id. */
    private final TreeMap<Long, Long> ongoingTxns = new TreeMap<>();
    /**
     * Kafka's unreplicatedTxns: completed transactions by first offset whose marker may still be above the high
     * watermark; they hold the last stable offset back until it is replicated.
     */
    private final TreeMap<Long, CompletedTxn> unreplicatedTxns = new TreeMap<>();

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

    /**
     * Records a batch already in the log (recovery, replication, a marker the leader checked) without validating it,
     * as Kafka does for appends of origin REPLICATION.
     *
     * @return the transaction a control batch completed; the caller then calls {@link #complete} with its segment
     */
    Optional<CompletedTxn> update(RecordBatch batch) {
        if (!batch.hasProducerId()) {
            return Optional.empty();
        }
        ProducerStateEntry current = producers.getOrDefault(batch.producerId(), ProducerStateEntry.EMPTY);
        if (batch.isControlBatch()) {
            Optional<EndTransactionMarker> marker = endTxnMarker(batch);
            return marker.flatMap(m -> applyMarker(batch.producerId(), current, batch.producerEpoch(), m,
                    batch.baseOffset(), batch.maxTimestamp()));
        }
        OptionalLong txnFirstOffset = current.currentTxnFirstOffset();
        if (batch.isTransactional() && txnFirstOffset.isEmpty()) {
            txnFirstOffset = OptionalLong.of(batch.baseOffset());
            ongoingTxns.put(batch.baseOffset(), batch.producerId());
        }
        producers.put(batch.producerId(), current.withBatch(batch.producerEpoch(),
                metadata(batch, batch.baseOffset(), batch.lastOffset()), batch.maxTimestamp(), txnFirstOffset));
        return Optional.empty();
    }

    /**
     * The checks of Kafka's {@code ProducerAppendInfo.appendEndTxnMarker} for a marker the leader is about to append
     * at {@code offset} (origin COORDINATOR); once appended, {@link #update} records it like any batch.
     *
     * @throws InvalidProducerEpochException if {@code producerEpoch} is older than the producer's
     * @throws TransactionCoordinatorFencedException if the coordinator epoch is older than the producer's last marker's
     */
    void throwIfInvalidEndTxnMarker(long producerId, short producerEpoch, EndTransactionMarker marker, long offset) {
        ProducerStateEntry current = producers.getOrDefault(producerId, ProducerStateEntry.EMPTY);
        throwIfInvalidEpoch(producerId, producerEpoch, current, offset);
        if (current.coordinatorEpoch() > marker.coordinatorEpoch()) {
            throw new TransactionCoordinatorFencedException("Invalid coordinator epoch for producerId " + producerId
                    + " at offset " + offset + " in partition " + partition + ": " + marker.coordinatorEpoch()
                    + " (zombie), " + current.coordinatorEpoch() + " (current)");
        }
    }

    private Optional<CompletedTxn> applyMarker(long producerId, ProducerStateEntry current, short producerEpoch,
                                               EndTransactionMarker marker, long offset, long timestamp) {
        producers.put(producerId, current.withMarker(producerEpoch, marker.coordinatorEpoch(), timestamp));
        if (current.currentTxnFirstOffset().isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new CompletedTxn(producerId, current.currentTxnFirstOffset().getAsLong(), offset,
                marker.controlType() == ControlRecordType.ABORT));
    }

    /** Replays a batch already in {@code segment}; an aborted transaction it completes is indexed there. */
    void replay(RecordBatch batch, LogSegment segment) throws IOException {
        Optional<CompletedTxn> completed = update(batch);
        if (completed.isPresent()) {
            complete(completed.get(), segment);
        }
    }

    /**
     * A transaction's marker is in {@code segment}: as Kafka's UnifiedLog.append, an aborted one goes into the
     * segment's transaction index, and the transaction is no longer ongoing.
     */
    void complete(CompletedTxn completed, LogSegment segment) throws IOException {
        if (completed.aborted()) {
            segment.appendAbortedTxn(new AbortedTxn(completed.producerId(), completed.firstOffset(),
                    completed.lastOffset(), lastStableOffset(completed)));
        }
        ongoingTxns.remove(completed.firstOffset());
        unreplicatedTxns.put(completed.firstOffset(), completed);
    }

    /**
     * What Kafka writes as the last stable offset of an aborted transaction's index entry: the first offset of the
     * next transaction of another producer still open, else the offset after the marker.
     */
    private long lastStableOffset(CompletedTxn completed) {
        for (Map.Entry<Long, Long> ongoing : ongoingTxns.entrySet()) {
            if (ongoing.getValue() != completed.producerId()) {
                return ongoing.getKey();
            }
        }
        return completed.lastOffset() + 1;
    }

    /**
     * Kafka's firstUnstableOffset: the first offset of the oldest transaction that is ongoing, or completed with its
     * marker at or above {@code highWatermark}. Completed transactions below it are forgotten: the high watermark
     * of a leader never goes back, and a truncation rebuilds this state from the log.
     */
    OptionalLong firstUnstableOffset(long highWatermark) {
        unreplicatedTxns.values().removeIf(txn -> txn.lastOffset() < highWatermark);
        OptionalLong first = OptionalLong.empty();
        if (!ongoingTxns.isEmpty()) {
            first = OptionalLong.of(ongoingTxns.firstKey());
        }
        if (!unreplicatedTxns.isEmpty() && (first.isEmpty() || unreplicatedTxns.firstKey() < first.getAsLong())) {
            first = OptionalLong.of(unreplicatedTxns.firstKey());
        }
        return first;
    }

    /**
     * Forgets producers whose last batch is below the new log start offset, as Kafka does after DeleteRecords or
     * retention; such a producer is then unknown and may continue at any sequence. Its open transaction goes too.
     */
    void removeBefore(long logStartOffset) {
        Iterator<Map.Entry<Long, ProducerStateEntry>> it = producers.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<Long, ProducerStateEntry> e = it.next();
            if (e.getValue().lastOffset() < logStartOffset) {
                it.remove();
                ongoingTxns.values().remove(e.getKey());
            }
        }
        unreplicatedTxns.values().removeIf(txn -> txn.lastOffset() < logStartOffset);
    }

    /**
     * Kafka's removeExpiredProducers: forgets producers without an ongoing transaction whose last timestamp is at
     * least {@code expirationMs} before {@code nowMs}.
     */
    void removeExpiredProducers(long nowMs, long expirationMs) {
        producers.values().removeIf(entry -> entry.currentTxnFirstOffset().isEmpty()
                && nowMs - entry.lastTimestamp() >= expirationMs);
    }

    void clear() {
        producers.clear();
        ongoingTxns.clear();
        unreplicatedTxns.clear();
    }

    Optional<ProducerStateEntry> entry(long producerId) {
        return Optional.ofNullable(producers.get(producerId));
    }

    Map<Long, ProducerStateEntry> activeProducers() {
        return Map.copyOf(producers);
    }

    /** The marker of a control batch; empty for a batch whose records were cleaned away, as Kafka skips it. */
    private static Optional<EndTransactionMarker> endTxnMarker(RecordBatch batch) {
        Iterator<Record> records = batch.iterator();
        if (!records.hasNext()) {
            return Optional.empty();
        }
        Record record = records.next();
        ControlRecordType type = ControlRecordType.parse(record.key());
        if (type != ControlRecordType.COMMIT && type != ControlRecordType.ABORT) {
            return Optional.empty();
        }
        return Optional.of(EndTransactionMarker.deserialize(record));
    }

    private static BatchMetadata metadata(RecordBatch batch, long firstOffset, long lastOffset) {
        return new BatchMetadata(batch.baseSequence(), batch.lastSequence(), firstOffset, lastOffset);
    }

    private void throwIfInvalidEpoch(long producerId, short epoch, ProducerStateEntry current, long offset) {
        if (epoch < current.producerEpoch()) {
            // Kafka answers INVALID_PRODUCER_EPOCH rather than PRODUCER_FENCED since 2.7, so that the client may abort.
            throw new InvalidProducerEpochException(String.format("Epoch of producer %d at offset %d in %s is %d,"
                    + " which is smaller than the last seen epoch %d", producerId, offset, partition, epoch,
                    current.producerEpoch()));
        }
    }

    /** Kafka's {@code ProducerAppendInfo}: the producer states one append would leave. */
    final class Append {
        private final Map<Long, ProducerStateEntry> updated = new HashMap<>();
        private final Map<Long, Long> startedTxns = new HashMap<>();

        /**
         * Checks the epoch, sequence and transactional state of a batch about to get offsets
         * {@code firstOffset..lastOffset}.
         *
         * @throws InvalidProducerEpochException if the producer has been fenced by a newer epoch
         * @throws OutOfOrderSequenceException on a sequence gap
         * @throws InvalidTxnStateException for a non-transactional batch while the producer has a transaction open
         */
        void append(RecordBatch batch, long firstOffset, long lastOffset) {
            if (!batch.hasProducerId()) {
                return;
            }
            long producerId = batch.producerId();
            ProducerStateEntry current = updated.containsKey(producerId) ? updated.get(producerId) : producers.get(producerId);
            if (current != null) {
                throwIfInvalidEpoch(producerId, batch.producerEpoch(), current, firstOffset);
                throwIfOutOfSequence(batch, current, firstOffset);
            }
            ProducerStateEntry base = current != null ? current : ProducerStateEntry.EMPTY;
            OptionalLong txnFirstOffset = base.currentTxnFirstOffset();
            if (txnFirstOffset.isPresent() && !batch.isTransactional()) {
                throw new InvalidTxnStateException("Expected transactional write from producer " + producerId
                        + " at offset " + firstOffset + " in partition " + partition);
            }
            if (txnFirstOffset.isEmpty() && batch.isTransactional()) {
                txnFirstOffset = OptionalLong.of(firstOffset);
                startedTxns.put(firstOffset, producerId);
            }
            updated.put(producerId, base.withBatch(batch.producerEpoch(), metadata(batch, firstOffset, lastOffset),
                    batch.maxTimestamp(), txnFirstOffset));
        }

        void commit() {
            producers.putAll(updated);
            ongoingTxns.putAll(startedTxns);
        }

        private void throwIfOutOfSequence(RecordBatch batch, ProducerStateEntry current, long offset) {
            int firstSeq = batch.baseSequence();
            if (batch.producerEpoch() != current.producerEpoch()) {
                if (firstSeq != 0 && current.producerEpoch() != RecordBatch.NO_PRODUCER_EPOCH) {
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
