package dev.samsa.log.cleaner;

import java.util.Map;

import dev.samsa.log.LastRecord;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;

/** The record filter of Kafka's {@code Cleaner.cleanInto}, for one group of segments; see {@link Cleaner}. */
final class CleanerFilter extends MemoryRecords.RecordFilter {

    private final OffsetMap map;
    private final CleanedTransactionMetadata txns;
    private final Map<Long, LastRecord> lastRecordsOfActiveProducers;
    private final long groupEnd;
    private final long upperBound;
    private boolean discardBatchRecords;

    CleanerFilter(long nowMs, long deleteRetentionMs, OffsetMap map, CleanedTransactionMetadata txns,
                  Map<Long, LastRecord> lastRecordsOfActiveProducers, long groupEnd, long upperBound) {
        super(nowMs, deleteRetentionMs);
        this.map = map;
        this.txns = txns;
        this.lastRecordsOfActiveProducers = lastRecordsOfActiveProducers;
        this.groupEnd = groupEnd;
        this.upperBound = upperBound;
    }

    @Override
    protected BatchRetentionResult checkBatchRetention(RecordBatch batch) {
        boolean canDiscardBatch = batch.isControlBatch() ? txns.onControlBatchRead(batch) : txns.onBatchRead(batch);
        if (batch.isControlBatch()) {
            // A marker waits for its delete horizon as a tombstone does.
            discardBatchRecords = canDiscardBatch && batch.deleteHorizonMs().isPresent()
                    && batch.deleteHorizonMs().getAsLong() <= currentTime;
        } else {
            discardBatchRecords = canDiscardBatch;
        }
        BatchRetention retention;
        if (batch.hasProducerId() && isLastRecordOfProducer(batch)) {
            retention = BatchRetention.RETAIN_EMPTY;
        } else if (batch.nextOffset() == groupEnd || batch.nextOffset() == upperBound) {
            retention = BatchRetention.RETAIN_EMPTY;
        } else if (discardBatchRecords) {
            retention = BatchRetention.DELETE;
        } else {
            retention = BatchRetention.DELETE_EMPTY;
        }
        return new BatchRetentionResult(retention, canDiscardBatch && batch.isControlBatch());
    }

    @Override
    protected boolean shouldRetainRecord(RecordBatch batch, Record record) {
        if (discardBatchRecords) {
            return false;
        }
        if (batch.isControlBatch()) {
            return true;
        }
        if (record.offset() > map.latestOffset()) {
            return true;
        }
        if (!record.hasKey()) {
            return false;
        }
        boolean latestForKey = record.offset() >= map.get(record.key());
        boolean retainDeletes = batch.deleteHorizonMs().isEmpty() || currentTime < batch.deleteHorizonMs().getAsLong();
        return latestForKey && (record.hasValue() || retainDeletes);
    }

    private boolean isLastRecordOfProducer(RecordBatch batch) {
        LastRecord last = lastRecordsOfActiveProducers.get(batch.producerId());
        if (last == null) {
            return false;
        }
        return last.lastDataOffset().isPresent() ? batch.lastOffset() == last.lastDataOffset().getAsLong()
                : batch.isControlBatch() && batch.producerEpoch() == last.producerEpoch();
    }
}
