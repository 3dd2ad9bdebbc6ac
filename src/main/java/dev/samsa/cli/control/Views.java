package dev.samsa.cli.control;

import dev.samsa.Broker;
import dev.samsa.ConsumerGroup;
import dev.samsa.GroupHistory;
import dev.samsa.GroupPartition;
import dev.samsa.History;
import dev.samsa.KafkaCluster;
import dev.samsa.PartitionView;
import dev.samsa.TransactionView;
import dev.samsa.event.TimedEvent;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;

/**
 * The cluster's state as JSON objects, read through the public API: one method per view, each field named as the
 * Java API names it.
 */
final class Views {

    private Views() {
    }

    static Map<String, Object> broker(Broker b) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("id", b.id());
        out.put("address", b.address());
        out.put("state", b.isRunning() ? "running" : "stopped");
        return out;
    }

    /** @throws ControlException 404 for a partition the cluster does not have */
    static Map<String, Object> partition(KafkaCluster cluster, String topic, int partition) {
        Names.partition(cluster, topic, partition);
        PartitionView p = cluster.partition(topic, partition);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("topic", topic);
        out.put("partition", partition);
        out.put("leader", p.leader());
        out.put("leaderEpoch", p.leaderEpoch());
        List<Integer> replicas = p.replicas();
        List<Integer> isr = p.isr();
        out.put("replicas", replicas);
        out.put("isr", isr);
        out.put("highWatermark", p.highWatermark());
        out.put("lastStableOffset", p.lastStableOffset());
        List<Map<String, Object>> states = new ArrayList<>();
        for (int r : replicas) {
            Map<String, Object> replica = new LinkedHashMap<>();
            replica.put("broker", r);
            replica.put("inIsr", isr.contains(r));
            try {
                replica.put("logEndOffset", p.logEndOffset(r));
                replica.put("logStartOffset", p.logStartOffset(r));
                replica.put("highWatermark", p.highWatermark(r));
                replica.put("online", true);
            } catch (IllegalStateException down) {
                replica.put("online", false); // its broker is down: it has no open log
            }
            states.add(replica);
        }
        out.put("replicaStates", states);
        return out;
    }

    static Map<String, Object> topic(KafkaCluster cluster, String name, int partitions) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("name", name);
        out.put("internal", org.apache.kafka.common.internals.Topic.isInternal(name));
        List<Object> list = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            list.add(partition(cluster, name, p));
        }
        out.put("partitions", list);
        return out;
    }

    static Map<String, Object> group(ConsumerGroup g, int coordinator) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("groupId", g.groupId());
        out.put("coordinator", coordinator);
        out.put("groupType", g.groupType());
        out.put("state", g.state().toString());
        out.put("generation", g.generation());
        out.put("protocolType", g.protocolType());
        out.put("protocol", g.protocol());
        out.put("leader", g.leader());
        List<Object> members = new ArrayList<>();
        for (ConsumerGroup.Member m : g.members()) {
            Map<String, Object> member = new LinkedHashMap<>();
            member.put("memberId", m.memberId());
            member.put("groupInstanceId", m.groupInstanceId());
            member.put("clientId", m.clientId());
            member.put("host", m.host());
            member.put("assignment", m.assignment());
            member.put("memberEpoch", m.memberEpoch());
            member.put("targetAssignment", m.targetAssignment());
            members.add(member);
        }
        out.put("members", members);
        out.put("committed", byPartition(g.committed()));
        out.put("lag", byPartition(g.lag()));
        out.put("pendingTransactionalOffsets", g.pendingTransactionalOffsets().stream().map(GroupPartition::toString).toList());
        return out;
    }

    /** {@code {"orders-0": 12}}: a partition as Kafka prints one, since JSON keys are strings. */
    private static Map<String, Object> byPartition(Map<GroupPartition, Long> values) {
        Map<String, Object> out = new LinkedHashMap<>();
        values.forEach((gp, v) -> out.put(gp.toString(), v));
        return out;
    }

    static Map<String, Object> transaction(TransactionView t) {
        Map<String, Object> out = new LinkedHashMap<>(Json.fields(t));
        out.put("state", t.state().toString());
        out.put("partitions", names(t.partitions()));
        Map<String, Object> pending = new LinkedHashMap<>();
        t.pendingOffsets().forEach((group, tps) -> pending.put(group, names(tps)));
        out.put("pendingOffsets", pending);
        return out;
    }

    private static List<String> names(SortedSet<GroupPartition> partitions) {
        return partitions.stream().map(GroupPartition::toString).toList();
    }

    static Map<String, Object> history(History h, KafkaCluster cluster) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("acknowledgedBatches", h.acknowledgedBatches());
        out.put("lostRecords", h.lostRecords());
        out.put("lost", h.lost());
        out.put("duplicates", h.duplicates());
        out.put("outOfOrder", h.outOfOrder());
        out.put("unchecked", h.unchecked());
        Map<String, Object> groups = new LinkedHashMap<>();
        for (String id : cluster.groupIds()) {
            GroupHistory g = h.group(id);
            Map<String, Object> group = new LinkedHashMap<>();
            group.put("deliveredTwice", g.deliveredTwice());
            group.put("skipped", g.skipped());
            groups.put(id, group);
        }
        out.put("groups", groups);
        out.put("text", h.toString());
        return out;
    }

    /**
     * One timeline entry: its position among all events ever recorded, the cluster time, the type and the line the
     * timeline prints, then the record's own fields.
     */
    static Map<String, Object> event(long position, TimedEvent e) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("position", position);
        out.put("timeMs", e.timeMs());
        out.put("time", java.time.Instant.ofEpochMilli(e.timeMs()));
        out.put("type", e.type());
        out.put("kind", e.event().getClass().getSimpleName());
        out.put("details", e.details());
        out.put("fields", Json.fields((Record) e.event()));
        return out;
    }
}
