package dev.samsa.group;

import dev.samsa.group.classic.ClassicGroupMetadata;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * The records the coordinator appends to {@code __consumer_offsets}, in Samsa's own compact encoding (kafka-clients
 * has no classes for Kafka's; these are not Kafka's bytes, so Kafka's tools cannot read this topic). The log is
 * compacted on the key, and a record with a null value (a tombstone) deletes its key.
 *
 * <pre>
 * key   := type:int16 body
 *   type 1, offset commit:  group:string topic:string partition:int32
 *   type 2, group metadata: group:string
 *   type 3, consumer group (KIP-848): see {@code ConsumerGroupRecords}, which reads and writes it
 * offset commit value := version:int8(0) offset:int64 leaderEpoch:int32 metadata:nullable_string commitTimestamp:int64
 * group metadata value := version:int8(1) protocolType:nullable_string generation:int32 protocol:nullable_string
 *                         leader:nullable_string currentStateTimestamp:int64 memberCount:int32 member*
 *   member := memberId:string groupInstanceId:nullable_string clientId:string clientHost:string
 *             rebalanceTimeout:int32 sessionTimeout:int32 subscription:bytes assignment:bytes
 *   (version 0, still read: protocolType:nullable_string generation:int32; the group comes back Empty)
 * string          := length:int16 utf8-bytes, or -2:int16 length:int32 utf8-bytes when longer than 32,767 bytes
 * nullable_string := as string, or -1:int16 for null
 * bytes           := length:int32 bytes
 * </pre>
 *
 * The group metadata value carries what Kafka's {@code GroupMetadataValue} does, so a coordinator that takes the
 * partition over brings a Stable group back Stable with its members and assignment.
 *
 * For example the commit of offset 42 for group "g", partition "t"-0 has the 15-byte key
 * {@code 00 01 | 00 01 'g' | 00 01 't' | 00 00 00 00}. Stateless; safe from any thread.
 */
public final class GroupRecords {

    static final short OFFSET_COMMIT = 1;
    static final short GROUP_METADATA = 2;
    /** The int16 length that says an int32 length follows. */
    private static final short LONG_STRING = -2;

    private GroupRecords() {
    }

    /** A decoded record: {@code partition} is set for an offset commit, null for group metadata; a null value is a tombstone. */
    public record Decoded(String groupId, TopicPartition partition, CommittedOffset offset, ClassicGroupMetadata group, boolean tombstone) {
    }

    public static SimpleRecord offsetCommit(long nowMs, String groupId, TopicPartition tp, CommittedOffset value) {
        byte[] key = offsetKey(groupId, tp);
        if (value == null) {
            return new SimpleRecord(nowMs, key, null);
        }
        byte[] metadata = bytes(value.metadata());
        ByteBuffer v = ByteBuffer.allocate(1 + 8 + 4 + nullableSize(metadata) + 8);
        v.put((byte) 0).putLong(value.offset()).putInt(value.leaderEpoch());
        putNullable(v, metadata);
        v.putLong(value.commitTimestampMs());
        return new SimpleRecord(nowMs, key, v.array());
    }

    public static SimpleRecord groupMetadata(long nowMs, String groupId, ClassicGroupMetadata value) {
        byte[] id = groupId.getBytes(StandardCharsets.UTF_8);
        ByteBuffer k = ByteBuffer.allocate(2 + nullableSize(id)).putShort(GROUP_METADATA);
        putNullable(k, id);
        if (value == null) {
            return new SimpleRecord(nowMs, k.array(), null);
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream v = new DataOutputStream(bytes);
        try {
            v.writeByte(1);
            writeNullable(v, value.protocolType());
            v.writeInt(value.generationId());
            writeNullable(v, value.protocolName());
            writeNullable(v, value.leaderId());
            v.writeLong(value.currentStateTimestampMs());
            v.writeInt(value.members().size());
            for (ClassicGroupMetadata.Member m : value.members()) {
                writeNullable(v, m.memberId());
                writeNullable(v, m.groupInstanceId());
                writeNullable(v, m.clientId());
                writeNullable(v, m.clientHost());
                v.writeInt(m.rebalanceTimeoutMs());
                v.writeInt(m.sessionTimeoutMs());
                v.writeInt(m.subscription().length);
                v.write(m.subscription());
                v.writeInt(m.assignment().length);
                v.write(m.assignment());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new SimpleRecord(nowMs, k.array(), bytes.toByteArray());
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
        byte version = v == null ? 0 : v.get();
        if (version != 0 && !(version == 1 && type == GROUP_METADATA)) {
            throw new IllegalStateException("Unknown value version " + version + " of key type " + type
                    + " in __consumer_offsets record at offset " + record.offset());
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
                int generation = v.getInt();
                if (version == 0) {
                    return new Decoded(groupId, null, null, new ClassicGroupMetadata(protocolType, generation, null, null,
                            record.timestamp(), List.of()), false);
                }
                String protocol = getNullable(v);
                String leader = getNullable(v);
                long stateTimestamp = v.getLong();
                int count = v.getInt();
                List<ClassicGroupMetadata.Member> members = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    members.add(new ClassicGroupMetadata.Member(getNullable(v), getNullable(v), getNullable(v), getNullable(v),
                            v.getInt(), v.getInt(), getBytes(v), getBytes(v)));
                }
                return new Decoded(groupId, null, null, new ClassicGroupMetadata(protocolType, generation, protocol, leader,
                        stateTimestamp, members), false);
            }
            default -> throw new IllegalStateException("Unknown key type " + type + " in __consumer_offsets record at offset "
                    + record.offset());
        }
    }

    private static byte[] offsetKey(String groupId, TopicPartition tp) {
        byte[] g = groupId.getBytes(StandardCharsets.UTF_8);
        byte[] t = tp.topic().getBytes(StandardCharsets.UTF_8);
        ByteBuffer k = ByteBuffer.allocate(2 + nullableSize(g) + nullableSize(t) + 4).putShort(OFFSET_COMMIT);
        putNullable(k, g);
        putNullable(k, t);
        k.putInt(tp.partition());
        return k.array();
    }

    private static byte[] bytes(String s) {
        return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
    }

    private static int nullableSize(byte[] s) {
        return s == null ? 2 : s.length <= Short.MAX_VALUE ? 2 + s.length : 2 + 4 + s.length;
    }

    /** Compact strings of the flexible protocol versions may be longer than an int16 length can say. */
    private static void putNullable(ByteBuffer b, byte[] s) {
        if (s == null) {
            b.putShort((short) -1);
        } else if (s.length <= Short.MAX_VALUE) {
            b.putShort((short) s.length).put(s);
        } else {
            b.putShort(LONG_STRING).putInt(s.length).put(s);
        }
    }

    private static void writeNullable(DataOutputStream out, String s) throws IOException {
        byte[] b = bytes(s);
        if (b == null) {
            out.writeShort(-1);
        } else if (b.length <= Short.MAX_VALUE) {
            out.writeShort(b.length);
            out.write(b);
        } else {
            out.writeShort(LONG_STRING);
            out.writeInt(b.length);
            out.write(b);
        }
    }

    private static byte[] getBytes(ByteBuffer b) {
        byte[] bytes = new byte[b.getInt()];
        b.get(bytes);
        return bytes;
    }

    private static String getNullable(ByteBuffer b) {
        int len = b.getShort();
        if (len == LONG_STRING) {
            len = b.getInt();
        }
        if (len < 0) {
            return null;
        }
        byte[] s = new byte[len];
        b.get(s);
        return new String(s, StandardCharsets.UTF_8);
    }
}
