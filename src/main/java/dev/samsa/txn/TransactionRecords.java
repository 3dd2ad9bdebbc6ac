package dev.samsa.txn;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * The records the transaction coordinator appends to {@code __transaction_state}, in Samsa's own encoding (as
 * {@code GroupRecords}; not Kafka's bytes). One record per transition carries the whole metadata of its transactional
 * id, so the log is compacted on the key and the last record wins; a null value (a tombstone) removes the id.
 *
 * <pre>
 * key   := type:int16(0) transactionalId:string
 * value := version:int8(0) producerId:int64 prevProducerId:int64 nextProducerId:int64 producerEpoch:int16
 *          lastProducerEpoch:int16 timeoutMs:int32 state:int8 partitionCount:int32 (topic:string partition:int32)*
 *          startTimeMs:int64 lastUpdateTimeMs:int64 clientTransactionVersion:int16
 * string := length:int32 utf8-bytes
 * </pre>
 *
 * The state byte is Kafka's ({@link TransactionState#id()}). Stateless; safe from any thread.
 */
public final class TransactionRecords {

    static final short TRANSACTION = 0;

    private TransactionRecords() {
    }

    /** A decoded record: the metadata, or null for a tombstone of {@code transactionalId}. */
    public record Decoded(String transactionalId, TransactionMetadata metadata) {
    }

    public static SimpleRecord transaction(long nowMs, TransactionMetadata m) {
        byte[] key = key(m.transactionalId());
        int size = 1 + 8 * 3 + 2 * 2 + 4 + 1 + 4 + 8 * 2 + 2;
        List<byte[]> topics = new ArrayList<>();
        for (TopicPartition tp : m.partitions()) {
            byte[] topic = utf8(tp.topic());
            topics.add(topic);
            size += 4 + topic.length + 4;
        }
        ByteBuffer v = ByteBuffer.allocate(size);
        v.put((byte) 0).putLong(m.producerId()).putLong(m.prevProducerId()).putLong(m.nextProducerId())
                .putShort(m.producerEpoch()).putShort(m.lastProducerEpoch()).putInt(m.timeoutMs()).put(m.state().id())
                .putInt(m.partitions().size());
        int i = 0;
        for (TopicPartition tp : m.partitions()) {
            byte[] topic = topics.get(i++);
            v.putInt(topic.length).put(topic).putInt(tp.partition());
        }
        v.putLong(m.startTimeMs()).putLong(m.lastUpdateTimeMs()).putShort(m.clientTransactionVersion());
        return new SimpleRecord(nowMs, key, v.array());
    }

    /** Removes an expired transactional id. */
    public static SimpleRecord tombstone(long nowMs, String transactionalId) {
        return new SimpleRecord(nowMs, key(transactionalId), null);
    }

    private static byte[] key(String transactionalId) {
        byte[] id = utf8(transactionalId);
        return ByteBuffer.allocate(2 + 4 + id.length).putShort(TRANSACTION).putInt(id.length).put(id).array();
    }

    /**
     * @throws IllegalStateException naming the record when its key type or value version is unknown
     */
    public static Decoded decode(Record record) {
        ByteBuffer k = record.key().duplicate();
        short type = k.getShort();
        if (type != TRANSACTION) {
            throw new IllegalStateException("Unknown key type " + type + " in __transaction_state record at offset " + record.offset());
        }
        String transactionalId = string(k);
        if (!record.hasValue()) {
            return new Decoded(transactionalId, null);
        }
        ByteBuffer v = record.value().duplicate();
        byte version = v.get();
        if (version != 0) {
            throw new IllegalStateException("Unknown value version " + version + " in __transaction_state record at offset "
                    + record.offset());
        }
        long producerId = v.getLong();
        long prevProducerId = v.getLong();
        long nextProducerId = v.getLong();
        short epoch = v.getShort();
        short lastEpoch = v.getShort();
        int timeoutMs = v.getInt();
        TransactionState state = TransactionState.fromId(v.get());
        int count = v.getInt();
        List<TopicPartition> partitions = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            partitions.add(new TopicPartition(string(v), v.getInt()));
        }
        long start = v.getLong();
        long lastUpdate = v.getLong();
        short clientVersion = v.getShort();
        return new Decoded(transactionalId, new TransactionMetadata(transactionalId, producerId, prevProducerId, nextProducerId,
                epoch, lastEpoch, timeoutMs, state, Set.copyOf(partitions), start, lastUpdate, clientVersion));
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String string(ByteBuffer b) {
        byte[] s = new byte[b.getInt()];
        b.get(s);
        return new String(s, StandardCharsets.UTF_8);
    }
}
