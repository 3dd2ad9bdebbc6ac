package dev.samsa.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;

/** A {@code __transaction_state} record carries the whole metadata of its transactional id, and replays to it. */
class TransactionRecordsTest {

    private static Record written(SimpleRecord r) {
        return MemoryRecords.withRecords(Compression.NONE, r).records().iterator().next();
    }

    @Test
    void aRecordDecodesToTheMetadataItWasWrittenFrom() {
        TransactionMetadata m = TransactionMetadata.fresh("tx-é", 42, 30_000, 5)
                .prepareInitProducerId((short) 3, (short) 2, 30_000, 6)
                .prepareAddPartitions(Set.of(new TopicPartition("b", 1), new TopicPartition("a", 0)), 7, (short) 0)
                .prepareAbortOrCommit(TransactionState.PREPARE_COMMIT, 8, (short) 0);

        TransactionRecords.Decoded d = TransactionRecords.decode(written(TransactionRecords.transaction(8, m)));

        assertThat(d.transactionalId()).isEqualTo("tx-é");
        assertThat(d.metadata()).isEqualTo(m);
        assertThat(d.metadata().partitions()).containsExactly(new TopicPartition("a", 0), new TopicPartition("b", 1));
    }

    @Test
    void theShardKeepsTheLastRecordOfEachTransactionalId() {
        TransactionCoordinatorShard shard = new TransactionCoordinatorShard(0, 1, 0, (s, before, after) -> {
        });
        TransactionMetadata empty = TransactionMetadata.fresh("tx", 42, 30_000, 0).prepareInitProducerId((short) 0, (short) -1, 30_000, 0);
        TransactionMetadata ongoing = empty.prepareAddPartitions(Set.of(new TopicPartition("a", 0)), 1, (short) 0);
        shard.replay(0, written(TransactionRecords.transaction(0, empty)));
        shard.replay(1, written(TransactionRecords.transaction(1, ongoing)));
        shard.onLoaded(2, 0);

        assertThat(shard.get("tx")).isEqualTo(ongoing);
    }

    @Test
    void anUnknownKeyTypeIsRefusedNamingTheTopic() {
        byte[] key = ByteBuffer.allocate(2).putShort((short) 9).array();
        assertThatThrownBy(() -> TransactionRecords.decode(written(new SimpleRecord(0, key, new byte[1]))))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("Unknown key type 9 in __transaction_state");
    }
}
