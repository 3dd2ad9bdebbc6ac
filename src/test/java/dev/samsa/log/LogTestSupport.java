package dev.samsa.log;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import dev.samsa.log.store.MappedStoreFactory;
import dev.samsa.log.store.MappedStores;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;

/** Builds record batches and reads them back as strings. */
final class LogTestSupport {

    static final long NOW = 1_767_225_600_000L; // 2026-01-01T00:00:00Z

    private LogTestSupport() {
    }

    static Stream<MappedStoreFactory> factories() {
        return Stream.of(MappedStores.chronicle(), MappedStores.jdk());
    }

    /** One batch with a record per value, keyed by the value, all stamped {@link #NOW}. */
    static MemoryRecords batch(String... values) {
        return MemoryRecords.withRecords(Compression.NONE, simple(NOW, values));
    }

    static MemoryRecords batchAt(long timestamp, String... values) {
        return MemoryRecords.withRecords(Compression.NONE, simple(timestamp, values));
    }

    static MemoryRecords idempotent(long producerId, short epoch, int baseSequence, String... values) {
        return MemoryRecords.withIdempotentRecords(Compression.NONE, producerId, epoch, baseSequence, simple(NOW, values));
    }

    static MemoryRecords transactional(long producerId, short epoch, int baseSequence, String... values) {
        return MemoryRecords.withTransactionalRecords(Compression.NONE, producerId, epoch, baseSequence, simple(NOW, values));
    }

    static SimpleRecord[] simple(long timestamp, String... values) {
        SimpleRecord[] records = new SimpleRecord[values.length];
        for (int i = 0; i < values.length; i++) {
            records[i] = new SimpleRecord(timestamp, bytes(values[i]), bytes(values[i]));
        }
        return records;
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** "offset:value" for every record. */
    static List<String> values(MemoryRecords records) {
        List<String> out = new ArrayList<>();
        for (RecordBatch batch : records.batches()) {
            for (Record record : batch) {
                byte[] value = new byte[record.valueSize()];
                record.value().get(value);
                out.add(record.offset() + ":" + new String(value, StandardCharsets.UTF_8));
            }
        }
        return out;
    }

    /** Everything from {@code from} to the log end, following the fetch loop of a consumer. */
    static List<String> readAll(PartitionLog log, long from) {
        List<String> out = new ArrayList<>();
        long next = from;
        while (next < log.logEndOffset()) {
            MemoryRecords records = log.read(next, Integer.MAX_VALUE, Long.MAX_VALUE, true).records();
            for (RecordBatch batch : records.batches()) {
                for (Record record : batch) {
                    if (record.offset() >= next) {
                        byte[] value = new byte[record.valueSize()];
                        record.value().get(value);
                        out.add(record.offset() + ":" + new String(value, StandardCharsets.UTF_8));
                    }
                }
                next = batch.lastOffset() + 1;
            }
        }
        return out;
    }
}
