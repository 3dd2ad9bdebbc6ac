package dev.samsa.group;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.Record;
import org.apache.kafka.common.record.SimpleRecord;

/**
 * The records the coordinator appends to {@code __consumer_offsets}, in Samsa's own compact encoding (kafka-clients
 * has no classes for Kafka's; these are not Kafka's bytes, so Kafka's tools cannot read this topic). The log is
 * compacted on the key, and a record with a null value (a tombstone) deletes its key.
 *
 * <pre>
 * key   := type:int16 body
 *   type 1, offset commit:  group:string topic:string partition:int32
 *   type 2, group metadata: group:string
 * offset commit value := version:int8(0) offset:int64 leaderEpoch:int32 metadata:nullable_string commitTimestamp:int64
 * group metadata value := version:int8(0) protocolType:nullable_string generation:int32
 * string          := length:int16 utf8-bytes
 * nullable_string := length:int16 (-1 for null) utf8-bytes
 * </pre>
 *
 * For example the commit of offset 42 for group "g", partition "t"-0 has the 15-byte key
 * {@code 00 01 | 00 01 'g' | 00 01 't' | 00 00 00 00}. Stateless; safe from any thread.
 */
public final class GroupRecords {

    static final short OFFSET_COMMIT = 1;
    static final short GROUP_METADATA = 2;

    private GroupRecords() {
    }

    /** A decoded record: exactly one of {@code offsetKey} or {@code groupId}-only is set; value null is a tombstone. */
    public record Decoded(String groupId, TopicPartition partition, CommittedOffset offset, GroupMetadata group, boolean tombstone) {
    }

    /** What survives of a classic group in the log: enough to bring it back as an Empty group. */
    public record GroupMetadata(String protocolType, int generationId) {
    }

    public static SimpleRecord offsetCommit(long nowMs, String groupId, TopicPartition tp, CommittedOffset value) {
        byte[] key = offsetKey(groupId, tp);
        if (value == null) {
            return new SimpleRecord(nowMs, key, null);
        }
        byte[] metadata = bytes(value.metadata());
        ByteBuffer v = ByteBuffer.allocate(1 + 8 + 4 + 2 + (metadata == null ? 0 : metadata.length) + 8);
        v.put((byte) 0).putLong(value.offset()).putInt(value.leaderEpoch());
        putNullable(v, metadata);
        v.putLong(value.commitTimestampMs());
        return new SimpleRecord(nowMs, key, v.array());
    }

    public static SimpleRecord groupMetadata(long nowMs, String groupId, GroupMetadata value) {
        byte[] id = groupId.getBytes(StandardCharsets.UTF_8);
        ByteBuffer k = ByteBuffer.allocate(2 + 2 + id.length).putShort(GROUP_METADATA);
        putNullable(k, id);
        if (value == null) {
            return new SimpleRecord(nowMs, k.array(), null);
        }
        byte[] type = bytes(value.protocolType());
        ByteBuffer v = ByteBuffer.allocate(1 + 2 + (type == null ? 0 : type.length) + 4);
        v.put((byte) 0);
        putNullable(v, type);
        v.putInt(value.generationId());
        return new SimpleRecord(nowMs, k.array(), v.array());
    }

    public static MemoryRecords batch(SimpleRecord... records) {
        return MemoryRecords.withRecords(Compression.NONE, records);
    }

    /**
     * @throws IllegalStateException naming the record when its key type or value version is unknown
     */
    public static Decoded decode(Record record) {
        ByteBuffer k = record.key().duplicate();
        short type = k.getShort();
        String groupId = getNullable(k);
        ByteBuffer v = record.hasValue() ? record.value().duplicate() : null;
        if (v != null && v.get() != 0) {
            throw new IllegalStateException("Unknown value version in __consumer_offsets record at offset " + record.offset());
        }
        switch (type) {
            case OFFSET_COMMIT -> {
                TopicPartition tp = new TopicPartition(getNullable(k), k.getInt());
                if (v == null) {
                    return new Decoded(groupId, tp, null, null, true);
                }
                long offset = v.getLong();
                int epoch = v.getInt();
                String metadata = getNullable(v);
                return new Decoded(groupId, tp, new CommittedOffset(offset, epoch, metadata, v.getLong()), null, false);
            }
            case GROUP_METADATA -> {
                if (v == null) {
                    return new Decoded(groupId, null, null, null, true);
                }
                String protocolType = getNullable(v);
                return new Decoded(groupId, null, null, new GroupMetadata(protocolType, v.getInt()), false);
            }
            default -> throw new IllegalStateException("Unknown key type " + type + " in __consumer_offsets record at offset "
                    + record.offset());
        }
    }

    private static byte[] offsetKey(String groupId, TopicPartition tp) {
        byte[] g = groupId.getBytes(StandardCharsets.UTF_8);
        byte[] t = tp.topic().getBytes(StandardCharsets.UTF_8);
        ByteBuffer k = ByteBuffer.allocate(2 + 2 + g.length + 2 + t.length + 4).putShort(OFFSET_COMMIT);
        putNullable(k, g);
        putNullable(k, t);
        k.putInt(tp.partition());
        return k.array();
    }

    private static byte[] bytes(String s) {
        return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
    }

    private static void putNullable(ByteBuffer b, byte[] s) {
        if (s == null) {
            b.putShort((short) -1);
        } else {
            b.putShort((short) s.length).put(s);
        }
    }

    private static String getNullable(ByteBuffer b) {
        short len = b.getShort();
        if (len < 0) {
            return null;
        }
        byte[] s = new byte[len];
        b.get(s);
        return new String(s, StandardCharsets.UTF_8);
    }
}
