package dev.samsa;

import dev.samsa.cluster.ClusterState;
import dev.samsa.cluster.ConsumerHistory;
import dev.samsa.cluster.Partition;
import dev.samsa.cluster.ProduceHistory.AckedBatch;
import dev.samsa.event.BrokerIsolated;
import dev.samsa.event.BrokerStopped;
import dev.samsa.event.ClusterEvent;
import dev.samsa.event.ClusterTimeline;
import dev.samsa.event.Finding;
import dev.samsa.event.IsolationHealed;
import dev.samsa.event.LeaderChanged;
import dev.samsa.event.Truncated;
import dev.samsa.event.TimedEvent;
import dev.samsa.log.PartitionLog;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.DefaultRecordBatch;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.TimestampType;

/**
 * What the cluster acknowledged to producers, checked against the logs as they are now ({@code cluster.history()}):
 * acknowledged records no longer in their partition's log (lost) with the fault events around the loss, and batches
 * one idempotent producer wrote twice (duplicates), acknowledged batches whose producer sequences skip or go back (out
 * of order), and per consumer group ({@link #group}) records delivered twice or skipped. A snapshot, computed on the
 * cluster loop.
 *
 * <p>A partition is checked against its current leader's log; a partition with no leader (offline) is listed as
 * unchecked instead. Records below the log start offset (retention, DeleteRecords) and records of compacted topics
 * that compaction removed are not losses.
 */
public final class History {

    /**
     * Acknowledged records a partition's log no longer holds: a batch of producer {@code producerId} (-1: not
     * idempotent) and epoch starting at sequence {@code baseSequence} (-1: none), acknowledged by broker
     * {@code acknowledgedBy} with {@code acks}; {@code lostBy} is the timeline line of the fault that lost it (the latest
     * crash, power loss or isolation of that broker before the loss, else the unclean election or the fault before the
     * loss), null when the timeline holds none.
     */
    public record Lost(String topic, int partition, long baseOffset, long lastOffset, long producerId, int producerEpoch,
            int baseSequence, int acks, int acknowledgedBy, long acknowledgedAtMs, long lostAtMs, String lostBy,
            List<String> nearbyEvents) {
        @Override
        public String toString() {
            return topic + "-" + partition + " offsets " + baseOffset + ".." + lastOffset + " (acks=" + acks
                    + ", acknowledged by broker " + acknowledgedBy + ", producer " + producerId + ")"
                    + nearbyEvents.stream().map(e -> "\n      " + e).collect(Collectors.joining());
        }
    }

    /** One idempotent producer's batch found more than once in a log. */
    public record Duplicate(String topic, int partition, long producerId, int producerEpoch, int baseSequence,
            List<Long> baseOffsets, long acknowledgedAtMs) {
        @Override
        public String toString() {
            return topic + "-" + partition + " producer " + producerId + " epoch " + producerEpoch + " sequence "
                    + baseSequence + " at offsets " + baseOffsets;
        }
    }

    /**
     * Acknowledged batches of one idempotent producer (id and epoch) on one partition whose sequences do not follow
     * each other in offset order: {@code baseSequence} should have been {@code expectedSequence} (one past the last
     * sequence of the batch before it). A gap means the producer's records went missing between the two, a lower
     * sequence that they were written out of order.
     */
    public record OutOfOrder(String topic, int partition, long producerId, int producerEpoch, long baseOffset,
            int expectedSequence, int baseSequence, long acknowledgedAtMs) {
        @Override
        public String toString() {
            return topic + "-" + partition + " producer " + producerId + " epoch " + producerEpoch + " batch at offset "
                    + baseOffset + " has sequence " + baseSequence + ", expected " + expectedSequence;
        }
    }

    private static final java.util.Set<String> LEADERSHIP_TYPES = java.util.Set.of("LeaderChanged",
            "UncleanLeaderElected", "Truncated");

    private static final java.util.Set<String> FAULT_TYPES = java.util.Set.of("BrokerStopped", "BrokerStarted",
            "BrokerIsolated", "IsolationHealed", "LeaderChanged", "UncleanLeaderElected", "Truncated", "IsrShrunk",
            "ReplicationPaused", "ReplicationResumed");

    private final long acknowledgedBatches;
    private final long droppedBatches;
    private final List<Lost> lost;
    private final List<Duplicate> duplicates;
    private final List<OutOfOrder> outOfOrder;
    private final List<String> unchecked;
    private final Map<String, GroupHistory> groups;
    private final List<Finding> findings;

    private History(long acknowledgedBatches, long droppedBatches, List<Lost> lost, List<Duplicate> duplicates,
            List<OutOfOrder> outOfOrder, List<String> unchecked, Map<String, GroupHistory> groups,
            List<Finding> findings) {
        this.groups = groups;
        this.findings = List.copyOf(findings);
        this.outOfOrder = List.copyOf(outOfOrder);
        this.acknowledgedBatches = acknowledgedBatches;
        this.droppedBatches = droppedBatches;
        this.lost = List.copyOf(lost);
        this.duplicates = List.copyOf(duplicates);
        this.unchecked = List.copyOf(unchecked);
    }

    static History check(ClusterState state) {
        List<AckedBatch> acked = state.produceHistory().acknowledged();
        ClusterTimeline.Snapshot snapshot = state.timeline().snapshot();
        List<TimedEvent> events = snapshot.events();
        List<Finding> findings = new ArrayList<>();
        Map<TopicPartition, List<AckedBatch>> byPartition = new LinkedHashMap<>();
        acked.forEach(b -> byPartition.computeIfAbsent(b.partition(), k -> new ArrayList<>()).add(b));
        List<Lost> lost = new ArrayList<>();
        List<Duplicate> duplicates = new ArrayList<>();
        List<String> unchecked = new ArrayList<>();
        List<OutOfOrder> outOfOrder = new ArrayList<>();
        for (Map.Entry<TopicPartition, List<AckedBatch>> e : byPartition.entrySet()) {
            TopicPartition tp = e.getKey();
            outOfOrder.addAll(outOfOrder(e.getValue()));
            Partition p = state.metadata().partition(tp);
            if (p == null) {
                continue; // the topic was deleted: its records went with it on purpose
            }
            PartitionLog log = p.leader() < 0 ? null : p.log(p.leader());
            if (log == null) {
                unchecked.add(tp + " (no leader)");
                continue;
            }
            Map<Long, MutableRecordBatch> byBase = new HashMap<>();
            Map<String, List<Long>> byProducerSequence = new LinkedHashMap<>();
            log.forEachBatch(b -> {
                byBase.put(b.baseOffset(), b);
                if (b.hasProducerId() && !b.isControlBatch() && b.baseSequence() != RecordBatch.NO_SEQUENCE) {
                    byProducerSequence.computeIfAbsent(b.producerId() + "/" + b.producerEpoch() + "/" + b.baseSequence(),
                            k -> new ArrayList<>()).add(b.baseOffset());
                }
            });
            boolean compacted = p.topic().configs().getOrDefault("cleanup.policy", "delete").contains("compact");
            for (AckedBatch b : e.getValue()) {
                if (b.lastOffset() < log.logStartOffset() || compacted) {
                    continue;
                }
                MutableRecordBatch found = byBase.get(b.baseOffset());
                if (found == null || !same(found, b)) {
                    List<Integer> around = faultsAround(events, tp, b.timeMs());
                    int at = lostAt(events, around, tp, b.leader());
                    int cause = lostBy(events, at, b.leader());
                    Lost l = new Lost(tp.topic(), tp.partition(), b.baseOffset(), b.lastOffset(), b.producerId(),
                            b.producerEpoch(), b.baseSequence(), b.acks(), b.leader(), b.timeMs(),
                            at >= 0 ? events.get(at).timeMs() : around.isEmpty() ? b.timeMs() : events.get(around.get(0)).timeMs(),
                            cause < 0 ? null : events.get(cause).toString(),
                            around.stream().map(i -> events.get(i).toString()).toList());
                    lost.add(l);
                    findings.add(finding(l, events, at, cause, snapshot.dropped()));
                }
            }
            byProducerSequence.forEach((key, offsets) -> {
                if (offsets.size() > 1) {
                    String[] k = key.split("/");
                    long producerId = Long.parseLong(k[0]);
                    int epoch = Integer.parseInt(k[1]);
                    int sequence = Integer.parseInt(k[2]);
                    long ackedAt = e.getValue().stream().filter(b -> b.producerId() == producerId
                            && b.producerEpoch() == epoch && b.baseSequence() == sequence)
                            .mapToLong(AckedBatch::timeMs).max().orElse(Long.MAX_VALUE);
                    Duplicate d = new Duplicate(tp.topic(), tp.partition(), producerId, epoch, sequence, offsets, ackedAt);
                    duplicates.add(d);
                    Map<String, String> cells = new LinkedHashMap<>();
                    cells.put("topic", d.topic());
                    cells.put("partition", Integer.toString(d.partition()));
                    cells.put("producer id", Long.toString(producerId));
                    cells.put("producer epoch", Integer.toString(epoch));
                    cells.put("sequence", Integer.toString(sequence));
                    cells.put("written at offsets", offsets.toString());
                    cells.put("acknowledged at", instant(ackedAt));
                    findings.add(new Finding("duplicate", tp.topic() + "-" + tp.partition(), ackedAt, -1, -1,
                            offsets.size(), cells, d.toString()));
                }
            });
        }
        Map<String, GroupHistory> groups = new LinkedHashMap<>();
        ConsumerHistory consumers = state.consumerHistory();
        Map<TopicPartition, NavigableMap<Long, Long>> batches = new HashMap<>();
        Function<TopicPartition, NavigableMap<Long, Long>> recordBatchesOf = tp -> batches.computeIfAbsent(tp,
                k -> recordBatches(state, k));
        for (ConsumerHistory.Commit c : consumers.commits()) {
            groups.computeIfAbsent(c.groupId(), g -> GroupHistory.check(g, consumers, recordBatchesOf));
        }
        for (ConsumerHistory.Delivery d : consumers.deliveries()) {
            d.members().forEach(m -> groups.computeIfAbsent(m.groupId(), g -> GroupHistory.check(g, consumers, recordBatchesOf)));
        }
        for (OutOfOrder o : outOfOrder) {
            Map<String, String> cells = new LinkedHashMap<>();
            cells.put("topic", o.topic());
            cells.put("partition", Integer.toString(o.partition()));
            cells.put("offset", Long.toString(o.baseOffset()));
            cells.put("producer id", Long.toString(o.producerId()));
            cells.put("producer epoch", Integer.toString(o.producerEpoch()));
            cells.put("sequence", Integer.toString(o.baseSequence()));
            cells.put("expected sequence", Integer.toString(o.expectedSequence()));
            cells.put("acknowledged at", instant(o.acknowledgedAtMs()));
            findings.add(new Finding("out-of-order", o.topic() + "-" + o.partition(), o.acknowledgedAtMs(), -1, -1, 1,
                    cells, o.toString()));
        }
        groups.values().forEach(g -> findings.addAll(g.findings()));
        return new History(acked.size(), state.produceHistory().dropped(), lost, duplicates, outOfOrder, unchecked,
                groups, findings);
    }

    /**
     * The rule for one partition's acknowledged batches: per producer id and epoch, in offset order, each batch's
     * first sequence is one past the previous batch's last (wrapping after {@code Integer.MAX_VALUE} as the producer
     * does). A batch acknowledged twice at the same offsets (a retry answered as a duplicate) counts once. The broker
     * answers a sequence gap with OUT_OF_ORDER_SEQUENCE_NUMBER, so a finding means a broker acknowledged what it should
     * have refused, or a lost batch was written again at a later offset.
     */
    static List<OutOfOrder> outOfOrder(List<AckedBatch> partitionBatches) {
        Map<String, TreeMap<Long, AckedBatch>> byProducer = new LinkedHashMap<>();
        for (AckedBatch b : partitionBatches) {
            if (b.producerId() >= 0 && b.baseSequence() != RecordBatch.NO_SEQUENCE) {
                byProducer.computeIfAbsent(b.producerId() + "/" + b.producerEpoch(), k -> new TreeMap<>())
                        .putIfAbsent(b.baseOffset(), b);
            }
        }
        List<OutOfOrder> out = new ArrayList<>();
        for (TreeMap<Long, AckedBatch> batches : byProducer.values()) {
            AckedBatch previous = null;
            for (AckedBatch b : batches.values()) {
                if (previous != null) {
                    int lastSequence = DefaultRecordBatch.incrementSequence(previous.baseSequence(),
                            (int) (previous.lastOffset() - previous.baseOffset()));
                    int expected = DefaultRecordBatch.incrementSequence(lastSequence, 1);
                    if (b.baseSequence() != expected) {
                        out.add(new OutOfOrder(b.partition().topic(), b.partition().partition(), b.producerId(),
                                b.producerEpoch(), b.baseOffset(), expected, b.baseSequence(), b.timeMs()));
                    }
                }
                previous = b;
            }
        }
        return out;
    }

    private static boolean same(MutableRecordBatch inLog, AckedBatch acked) {
        if (inLog.lastOffset() != acked.lastOffset()) {
            return false;
        }
        // The CRC leaves out the offsets (Kafka's DefaultRecordBatch sums from the attributes on), but a leader that
        // stamps LogAppendTime rewrites it: then the writer tells, and a batch of no idempotent producer at the same
        // offsets is given the benefit of the doubt.
        return inLog.checksum() == acked.checksum()
                || acked.producerId() >= 0 && inLog.producerId() == acked.producerId()
                        && inLog.baseSequence() == acked.baseSequence()
                || acked.producerId() < 0 && inLog.timestampType() == TimestampType.LOG_APPEND_TIME;
    }

    /**
     * The data batches of a partition's leader log, base offset to last offset (no transaction markers, nothing below
     * the log start): the offsets a consumer is handed records at. Empty when the partition has no leader now.
     */
    private static NavigableMap<Long, Long> recordBatches(ClusterState state, TopicPartition tp) {
        TreeMap<Long, Long> batches = new TreeMap<>();
        Partition p = state.metadata().partition(tp);
        PartitionLog log = p == null || p.leader() < 0 ? null : p.log(p.leader());
        if (log != null) {
            log.forEachBatch(b -> {
                if (!b.isControlBatch()) {
                    batches.put(Math.max(b.baseOffset(), log.logStartOffset()), b.lastOffset());
                }
            });
        }
        return batches;
    }

    /**
     * The indexes of the fault and leadership events of the partition's brokers from the acknowledgement on: where it
     * was lost.
     */
    private static List<Integer> faultsAround(List<TimedEvent> events, TopicPartition tp, long ackedAtMs) {
        String name = tp.topic() + "-" + tp.partition() + " ";
        List<Integer> around = new ArrayList<>();
        boolean stopped = false;
        for (int i = 0; i < events.size(); i++) {
            TimedEvent e = events.get(i);
            if (e.timeMs() < ackedAtMs || !FAULT_TYPES.contains(e.type())
                    || !(e.details().startsWith(name) || e.type().startsWith("Broker") || e.type().startsWith("Isolation"))) {
                continue;
            }
            // A start or heal is news only after a stop: those of the cluster's own start share a manual clock's time.
            boolean recovery = e.type().equals("BrokerStarted") || e.type().equals("IsolationHealed");
            stopped |= !recovery;
            if (stopped && around.size() < 8) {
                around.add(i);
            }
        }
        return around;
    }

    /**
     * The index of the partition's first leadership move or truncation after the acknowledgement (the loss), or -1. A
     * broker isolated from the others at the election acknowledged as a stale leader: the election of the same
     * millisecond came before its acknowledgement, and its truncation on the heal is the loss.
     */
    private static int lostAt(List<TimedEvent> events, List<Integer> around, TopicPartition tp, int broker) {
        String name = tp.topic() + "-" + tp.partition() + " ";
        int at = around.stream().filter(i -> events.get(i).details().startsWith(name)
                && LEADERSHIP_TYPES.contains(events.get(i).type())).findFirst().orElse(-1);
        if (at < 0 || !(events.get(at).event() instanceof LeaderChanged) || !isolatedAt(events, at, broker)) {
            return at;
        }
        for (int i : around) {
            if (i > at && events.get(i).event() instanceof Truncated t && t.brokerId() == broker
                    && t.topic().equals(tp.topic()) && t.partition() == tp.partition()) {
                return i;
            }
        }
        return at;
    }

    /** Whether {@code broker} was cut off from the other brokers at event {@code at}. */
    private static boolean isolatedAt(List<TimedEvent> events, int at, int broker) {
        for (int i = at - 1; i >= 0; i--) {
            ClusterEvent e = events.get(i).event();
            if (e instanceof IsolationHealed h && h.brokerId() == broker) {
                return false;
            }
            if (e instanceof BrokerIsolated iso && iso.brokerId() == broker) {
                return iso.fromBrokers();
            }
        }
        return false;
    }

    /**
     * The index of the fault that lost what {@code broker} acknowledged: its latest crash, power loss or isolation from
     * the other brokers before the loss at {@code at} (before now when -1); else an unclean election at {@code at};
     * else the latest fault applied before it; -1 when the timeline holds none.
     */
    private static int lostBy(List<TimedEvent> events, int at, int broker) {
        int end = at < 0 ? events.size() : at;
        // A fencing is the controller's answer to an isolation: the isolation is the fault, when the timeline has it.
        for (boolean fenced : new boolean[] {false, true}) {
            for (int i = end - 1; i >= 0; i--) {
                ClusterEvent e = events.get(i).event();
                if (e instanceof BrokerStopped s && s.brokerId() == broker && (fenced || !s.how().equals("FENCED"))
                        || e instanceof BrokerIsolated iso && iso.brokerId() == broker && iso.fromBrokers()) {
                    return i;
                }
            }
        }
        if (at >= 0 && events.get(at).event() instanceof LeaderChanged l && l.unclean()) {
            return at;
        }
        for (int i = end - 1; i >= 0; i--) {
            if (events.get(i).type().equals("FaultApplied")) {
                return i;
            }
        }
        return -1;
    }

    /** A loss as a mark at the event that lost it and a row of the findings table linked to the fault that did. */
    private static Finding finding(Lost l, List<TimedEvent> events, int at, int cause, long dropped) {
        Map<String, String> cells = new LinkedHashMap<>();
        cells.put("topic", l.topic());
        cells.put("partition", Integer.toString(l.partition()));
        cells.put("offsets", GroupHistory.range(l.baseOffset(), l.lastOffset()));
        cells.put("producer id", l.producerId() < 0 ? "none" : Long.toString(l.producerId()));
        cells.put("sequence", l.baseSequence() < 0 ? "none" : GroupHistory.range(l.baseSequence(),
                l.baseSequence() + l.lastOffset() - l.baseOffset()));
        cells.put("acknowledged at", instant(l.acknowledgedAtMs()));
        cells.put("acks", Integer.toString(l.acks()));
        cells.put("acknowledged by", "broker " + l.acknowledgedBy());
        String text = "offsets " + l.baseOffset() + ".." + l.lastOffset() + " acknowledged (acks=" + l.acks()
                + ") by broker " + l.acknowledgedBy() + " at " + instant(l.acknowledgedAtMs())
                + (at < 0 ? "" : ", lost at " + events.get(at)) + (cause < 0 ? "" : ", lost by " + events.get(cause));
        return new Finding("lost", l.topic() + "-" + l.partition(), l.lostAtMs(), at < 0 ? -1 : dropped + at,
                cause < 0 ? -1 : dropped + cause, l.lastOffset() - l.baseOffset() + 1, cells, text);
    }

    private static String instant(long ms) {
        return ms == Long.MAX_VALUE ? "unknown" : java.time.Instant.ofEpochMilli(ms).toString();
    }

    /** The check's findings for the HTML timeline: each a mark on its lane where it happened, and a table row. */
    List<Finding> findings() {
        return findings;
    }

    /**
     * The consumer side for {@code groupId}: records delivered to it twice, records skipped (see {@link GroupHistory}).
     * A group that neither committed nor fetched has nothing to report.
     */
    public GroupHistory group(String groupId) {
        return groups.getOrDefault(groupId, GroupHistory.empty(groupId));
    }

    /** Acknowledged records no longer in their partition's log. */
    public List<Lost> lost() {
        return lost;
    }

    /** How many acknowledged records were lost, all partitions together. */
    public long lostRecords() {
        return lost.stream().mapToLong(l -> l.lastOffset() - l.baseOffset() + 1).sum();
    }

    /** Batches one idempotent producer wrote more than once. */
    public List<Duplicate> duplicates() {
        return duplicates;
    }

    /** Acknowledged batches whose producer sequences do not follow on from the batch before (see {@link OutOfOrder}). */
    public List<OutOfOrder> outOfOrder() {
        return outOfOrder;
    }

    /** Partitions that could not be checked (no leader now), with the reason. */
    public List<String> unchecked() {
        return unchecked;
    }

    /** How many acknowledged batches were checked. */
    public long acknowledgedBatches() {
        return acknowledgedBatches;
    }

    /** The report: counts, then each loss with the events around it, then each duplicate. */
    @Override
    public String toString() {
        StringBuilder out = new StringBuilder("history: " + acknowledgedBatches + " acknowledged batches checked"
                + (droppedBatches > 0 ? " (" + droppedBatches + " older ones dropped)" : "") + ", "
                + lostRecords() + " acknowledged records lost, " + duplicates.size() + " duplicated batches, "
                + outOfOrder.size() + " batches out of sequence");
        lost.forEach(l -> out.append("\n  lost ").append(l));
        duplicates.forEach(d -> out.append("\n  duplicate ").append(d));
        outOfOrder.forEach(o -> out.append("\n  out of order ").append(o));
        unchecked.forEach(u -> out.append("\n  unchecked ").append(u));
        groups.values().forEach(g -> out.append("\n").append(g));
        return out.toString();
    }
}
