package dev.samsa.coordinator;

import java.util.List;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * What a write operation computed, as Kafka's {@code CoordinatorResult}: the records that change the shard (applied by
 * {@link CoordinatorShard#replay}, the same code that loads the shard after a failover) and the answer to give once
 * they are replicated.
 */
public record CoordinatorResult<T>(List<SimpleRecord> records, T response) {

    public CoordinatorResult {
        records = List.copyOf(records);
    }
}
