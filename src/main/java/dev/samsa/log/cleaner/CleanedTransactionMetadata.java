package dev.samsa.log.cleaner;

import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import dev.samsa.log.AbortedTxn;
import dev.samsa.log.CleanedSegment;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * Kafka's {@code CleanedTransactionMetadata}: while the cleaner reads a log in offset order, which batches belong to
 * aborted transactions (removed) and which transaction markers may go (a COMMIT once no batch of its transaction is
 * left in this pass, an ABORT once the aborted batches are gone). An ABORT marker that stays is indexed in the
 * cleaned segment.
 */
final class CleanedTransactionMetadata {

    private final ArrayDeque<AbortedTxn> abortedTransactions = new ArrayDeque<>();
    private final Map<Long, AbortedTransaction> ongoingAbortedTxns = new HashMap<>();
    private final Set<Long> ongoingCommittedTxns = new HashSet<>();
    private CleanedSegment cleanedSegment;

    void addAbortedTransactions(List<AbortedTxn> aborted) {
        aborted.stream().sorted(Comparator.comparingLong(AbortedTxn::firstOffset)).forEach(abortedTransactions::add);
    }

    /** Where kept ABORT markers are indexed from now on. */
    void cleaningInto(CleanedSegment segment) {
        this.cleanedSegment = segment;
    }

    /** @return whether the marker may be discarded */
    boolean onControlBatchRead(RecordBatch controlBatch) {
        consumeAbortedTxnsUpTo(controlBatch.lastOffset());
        Iterator<Record> records = controlBatch.iterator();
        if (!records.hasNext()) {
            // A control batch emptied by an earlier pass.
            return true;
        }
        ControlRecordType type = ControlRecordType.parse(records.next().key());
        long producerId = controlBatch.producerId();
        switch (type) {
            case ABORT -> {
                AbortedTransaction aborted = ongoingAbortedTxns.remove(producerId);
                // Kept until every batch of the transaction has been removed.
                if (aborted != null && aborted.lastObservedBatchOffset.isPresent()) {
                    if (cleanedSegment != null) {
                        cleanedSegment.appendAbortedTxn(aborted.txn);
                    }
                    return false;
                }
                return true;
            }
            case COMMIT -> {
                return !ongoingCommittedTxns.remove(producerId);
            }
            default -> {
                return false;
            }
        }
    }

    /** @return whether the batch belongs to an aborted transaction, so that its records go */
    boolean onBatchRead(RecordBatch batch) {
        consumeAbortedTxnsUpTo(batch.lastOffset());
        if (!batch.isTransactional()) {
            return false;
        }
        AbortedTransaction aborted = ongoingAbortedTxns.get(batch.producerId());
        if (aborted != null) {
            aborted.lastObservedBatchOffset = Optional.of(batch.lastOffset());
            return true;
        }
        ongoingCommittedTxns.add(batch.producerId());
        return false;
    }

    private void consumeAbortedTxnsUpTo(long offset) {
        while (!abortedTransactions.isEmpty() && abortedTransactions.peek().firstOffset() <= offset) {
            AbortedTxn txn = abortedTransactions.poll();
            ongoingAbortedTxns.computeIfAbsent(txn.producerId(), id -> new AbortedTransaction(txn));
        }
    }

    private static final class AbortedTransaction {
        private final AbortedTxn txn;
        private Optional<Long> lastObservedBatchOffset = Optional.empty();

        private AbortedTransaction(AbortedTxn txn) {
            this.txn = txn;
        }
    }
}
