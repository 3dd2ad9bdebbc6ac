package dev.samsa.group.modern.consumer;

import dev.samsa.event.Timeline;
import dev.samsa.group.modern.Assignment;
import dev.samsa.group.modern.MemberState;
import dev.samsa.group.modern.TopicMetadata;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * A consumer group's record in {@code __consumer_offsets}, key type 3 beside {@code GroupRecords}' offset commits (1)
 * and classic groups (2): one record holds the whole group, so the last one of a key is the group (Kafka splits it into
 * metadata, member, target and current-assignment records; one record keeps replay trivial at Samsa's sizes). A null
 * value (tombstone) deletes the group.
 *
 * <pre>
 * key   := type:int16(3) group:string
 * value := version:int8(1) groupEpoch:int32 targetAssignmentEpoch:int32
 *          topicCount:int32 (name:string id:uuid partitions:int32)*      the subscribed topics of the target
 *          memberCount:int32 member*
 * member := memberId:string instanceId:nullable_string rackId:nullable_string clientId:string clientHost:string
 *           topicNameCount:int32 name:string* regex:nullable_string assignor:nullable_string rebalanceTimeoutMs:int32
 *           memberEpoch:int32 previousMemberEpoch:int32 state:int8 assigned:assignment pendingRevocation:assignment
 *           target:assignment classic:int8 (0, or 1 then classicMember; version 1 on)
 * classicMember := protocolName:string subscriptionVersion:int16 sessionTimeoutMs:int32 protocolCount:int32 name:string*
 *           (a member that joined with JoinGroup, of a mixed group)
 * assignment := topicCount:int32 (id:uuid partitionCount:int32 partition:int32*)*
 * uuid := mostSignificantBits:int64 leastSignificantBits:int64
 * string := length:int32 utf8-bytes; nullable_string: length -1 for null
 * </pre>
 *
 * Stateless; safe from any thread.
 */
public final class ConsumerGroupRecords {

    public static final short CONSUMER_GROUP = 3;

    private ConsumerGroupRecords() {
    }

    public static boolean isConsumerGroupRecord(Record record) {
        return record.key().getShort(record.key().position()) == CONSUMER_GROUP;
    }

    public static String groupId(Record record) {
        ByteBuffer k = record.key().duplicate();
        k.getShort();
        return getString(k);
    }

    public static SimpleRecord record(long nowMs, ConsumerGroup group) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream v = new DataOutputStream(bytes);
        try {
            v.writeByte(1);
            v.writeInt(group.groupEpoch());
            v.writeInt(group.targetAssignmentEpoch());
            v.writeInt(group.subscribedTopics().size());
            for (TopicMetadata t : group.subscribedTopics().values()) {
                writeString(v, t.name());
                writeUuid(v, t.id());
                v.writeInt(t.partitions());
            }
            v.writeInt(group.numMembers());
            for (ConsumerGroupMember m : group.members()) {
                writeString(v, m.memberId());
                writeString(v, m.instanceId());
                writeString(v, m.rackId());
                writeString(v, m.clientId());
                writeString(v, m.clientHost());
                v.writeInt(m.subscribedTopicNames().size());
                for (String name : m.subscribedTopicNames()) {
                    writeString(v, name);
                }
                writeString(v, m.subscribedTopicRegex());
                writeString(v, m.serverAssignor());
                v.writeInt(m.rebalanceTimeoutMs());
                v.writeInt(m.memberEpoch());
                v.writeInt(m.previousMemberEpoch());
                v.writeByte(m.state().ordinal());
                writeAssignment(v, m.assignedPartitions());
                writeAssignment(v, m.partitionsPendingRevocation());
                writeAssignment(v, group.targetAssignment(m.memberId()));
                writeClassicMember(v, group.classicMembers.get(m.memberId()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new SimpleRecord(nowMs, key(group.groupId()), bytes.toByteArray());
    }

    public static SimpleRecord tombstone(long nowMs, String groupId) {
        return new SimpleRecord(nowMs, key(groupId), null);
    }

    /** The record's value, copied out of the log's buffer to be decoded once the load completes; null for a tombstone. */
    public static ByteBuffer value(Record record) {
        if (!record.hasValue()) {
            return null;
        }
        ByteBuffer copy = ByteBuffer.allocate(record.valueSize());
        copy.put(record.value().duplicate()).flip();
        return copy;
    }

    /**
     * The group as its last record left it; its state is read off it, which the timeline records as a move from Empty.
     *
     * @throws IllegalStateException naming the group when the value version is unknown
     */
    public static ConsumerGroup decode(String groupId, ByteBuffer value, Timeline timeline) {
        ByteBuffer v = value.duplicate();
        byte version = v.get();
        if (version != 0 && version != 1) {
            throw new IllegalStateException("Unknown value version " + version + " of the record of consumer group "
                    + groupId + " in __consumer_offsets");
        }
        ConsumerGroup group = new ConsumerGroup(groupId, timeline);
        group.setGroupEpoch(v.getInt());
        int targetEpoch = v.getInt();
        SortedMap<String, TopicMetadata> topics = new TreeMap<>();
        for (int i = v.getInt(); i > 0; i--) {
            String name = getString(v);
            topics.put(name, new TopicMetadata(getUuid(v), name, v.getInt()));
        }
        group.setSubscribedTopics(topics);
        Map<String, Assignment> target = new TreeMap<>();
        for (int i = v.getInt(); i > 0; i--) {
            String memberId = getString(v);
            String instanceId = getString(v);
            String rackId = getString(v);
            String clientId = getString(v);
            String clientHost = getString(v);
            List<String> names = new ArrayList<>();
            for (int n = v.getInt(); n > 0; n--) {
                names.add(getString(v));
            }
            group.putMember(new ConsumerGroupMember(memberId, instanceId, rackId, clientId, clientHost, names, getString(v),
                    getString(v), v.getInt(), v.getInt(), v.getInt(), MemberState.values()[v.get()], getAssignment(v),
                    getAssignment(v)));
            target.put(memberId, getAssignment(v));
            if (version >= 1 && v.get() == 1) {
                group.classicMembers.put(memberId, getClassicMember(v));
            }
        }
        group.setTargetAssignment(targetEpoch, target);
        group.updateState();
        return group;
    }

    private static byte[] key(String groupId) {
        byte[] id = groupId.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(2 + 4 + id.length).putShort(CONSUMER_GROUP).putInt(id.length).put(id).array();
    }

    private static void writeString(DataOutputStream out, String s) throws IOException {
        if (s == null) {
            out.writeInt(-1);
            return;
        }
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(b.length);
        out.write(b);
    }

    private static String getString(ByteBuffer b) {
        int len = b.getInt();
        if (len < 0) {
            return null;
        }
        byte[] s = new byte[len];
        b.get(s);
        return new String(s, StandardCharsets.UTF_8);
    }

    private static void writeClassicMember(DataOutputStream out, ClassicProtocolMembers.ClassicMember m) throws IOException {
        if (m == null) {
            out.writeByte(0);
            return;
        }
        out.writeByte(1);
        writeString(out, m.protocolName());
        out.writeShort(m.subscriptionVersion());
        out.writeInt(m.sessionTimeoutMs());
        List<String> protocols = m.protocols().stream().sorted().toList();
        out.writeInt(protocols.size());
        for (String name : protocols) {
            writeString(out, name);
        }
    }

    private static ClassicProtocolMembers.ClassicMember getClassicMember(ByteBuffer b) {
        String protocolName = getString(b);
        short subscriptionVersion = b.getShort();
        int sessionTimeoutMs = b.getInt();
        java.util.Set<String> protocols = new java.util.HashSet<>();
        for (int n = b.getInt(); n > 0; n--) {
            protocols.add(getString(b));
        }
        return new ClassicProtocolMembers.ClassicMember(protocolName, subscriptionVersion, sessionTimeoutMs, protocols);
    }

    private static void writeUuid(DataOutputStream out, Uuid id) throws IOException {
        out.writeLong(id.getMostSignificantBits());
        out.writeLong(id.getLeastSignificantBits());
    }

    private static Uuid getUuid(ByteBuffer b) {
        return new Uuid(b.getLong(), b.getLong());
    }

    private static void writeAssignment(DataOutputStream out, Assignment a) throws IOException {
        out.writeInt(a.partitions().size());
        for (Map.Entry<Uuid, SortedSet<Integer>> e : a.partitions().entrySet()) {
            writeUuid(out, e.getKey());
            out.writeInt(e.getValue().size());
            for (int p : e.getValue()) {
                out.writeInt(p);
            }
        }
    }

    private static Assignment getAssignment(ByteBuffer b) {
        SortedMap<Uuid, SortedSet<Integer>> partitions = new TreeMap<>();
        for (int i = b.getInt(); i > 0; i--) {
            Uuid topic = getUuid(b);
            SortedSet<Integer> ps = new TreeSet<>();
            for (int n = b.getInt(); n > 0; n--) {
                ps.add(b.getInt());
            }
            partitions.put(topic, ps);
        }
        return new Assignment(partitions);
    }
}
