package dev.samsa.coordinator;

import dev.samsa.event.CoordinatorRecordSkipped;
import dev.samsa.event.Timeline;
import dev.samsa.log.LogReadInfo;
import dev.samsa.log.PartitionLog;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;

/** Replays a coordinator partition's log into a fresh shard, as Kafka's {@code CoordinatorLoader}. */
public final class CoordinatorLoader {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(CoordinatorLoader.class);

    private CoordinatorLoader() {
    }

    /**
     * Replays {@code log} from its start to its end into {@code shard}, then tells the shard it is loaded. A record that
     * does not decode is skipped, logged and put on the timeline: one bad record must not cost every key of the shard.
     */
    public static void load(String topic, CoordinatorShard shard, PartitionLog log, Timeline timeline) {
        long next = log.logStartOffset();
        long end = log.logEndOffset();
        int replayed = 0;
        int skipped = 0;
        while (next < end) {
            LogReadInfo info = log.read(next, 1 << 20, end, true);
            long before = next;
            for (MutableRecordBatch batch : info.records().batches()) {
                next = batch.nextOffset();
                if (batch.isControlBatch()) {
                    replayControlBatch(shard, batch);
                    continue;
                }
                for (Record r : batch) {
                    if (r.key() == null) {
                        continue;
                    }
                    try {
                        if (batch.isTransactional()) {
                            shard.replay(r.offset(), batch.producerId(), batch.producerEpoch(), r);
                        } else {
                            shard.replay(r.offset(), r);
                        }
                        replayed++;
                    } catch (RuntimeException e) {
                        LOG.warn("Skipping the undecodable record at offset {} of {}-{} on broker {}: {}",
                                r.offset(), topic, shard.partition(), shard.brokerId(), e.toString());
                        timeline.record(new CoordinatorRecordSkipped(shard.partition(), r.offset(), shard.brokerId(), e.toString()));
                        skipped++;
                    }
                }
            }
            if (next == before) {
                break;
            }
        }
        shard.onLoaded(replayed, skipped);
    }

    /** A transaction marker: the batch's one control record says COMMIT or ABORT; other control types say nothing here. */
    private static void replayControlBatch(CoordinatorShard shard, MutableRecordBatch batch) {
        for (Record r : batch) {
            ControlRecordType type = ControlRecordType.parse(r.key());
            if (type == ControlRecordType.COMMIT || type == ControlRecordType.ABORT) {
                shard.replayEndTransactionMarker(batch.baseOffset(), batch.producerId(), batch.producerEpoch(),
                        type == ControlRecordType.COMMIT);
            }
        }
    }
}
