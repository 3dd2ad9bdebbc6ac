package dev.samsa;

import dev.samsa.cluster.ConsumerHistory;
import dev.samsa.cluster.ConsumerHistory.Commit;
import dev.samsa.cluster.ConsumerHistory.Delivery;
import dev.samsa.cluster.ConsumerHistory.Member;
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

/**
 * One consumer group's side of the history ({@link History#group}): records the brokers sent to the group's members
 * more than once, and records the group's committed offset passed that no member processed (skipped).
 *
 * <p>A fetch is the group's when its client id held a membership of the group at that moment (the member id and
 * generation of its last SyncGroup, or member epoch of its last ConsumerGroupHeartbeat). The broker sees deliveries,
 * not processing: a record sent twice may have been processed once (a consumer that fetched ahead, then lost the
 * partition). So a test whose processing code reports each record it finished ({@link KafkaCluster#recordProcessed})
 * is judged by that: a record is skipped when a commit of the group passed its offset and no member processed it.
 * For a group that reports nothing, a record is skipped when an offset was committed past it before any member was
 * sent it.
 */
public final class GroupHistory {

    /** A member of the group as it was sent records: its generation (member epoch for the consumer protocol). */
    public record Receiver(String memberId, int generation, String clientId) {
        @Override
        public String toString() {
            return memberId + " (generation " + generation + ", client " + clientId + ")";
        }
    }

    /**
     * Offsets of a partition sent to the group more than once: to these members, in order; the second time at cluster
     * time {@code againAtMs}.
     */
    public record DeliveredTwice(String topic, int partition, long firstOffset, long lastOffset,
            List<Receiver> receivers, long againAtMs) {

        /** The receivers' client ids, in order. */
        public List<String> clients() {
            return receivers.stream().map(Receiver::clientId).toList();
        }

        @Override
        public String toString() {
            return topic + "-" + partition + " offsets " + firstOffset + ".." + lastOffset + " sent to " + receivers;
        }
    }

    /**
     * Offsets passed by a commit of {@code memberId} (generation) that no member processed, or, when the group reports
     * no processing, that no member had been sent; committed at cluster time {@code committedAtMs}.
     */
    public record Skipped(String topic, int partition, long firstOffset, long lastOffset, String memberId,
            int generation, boolean byProcessing, long committedAtMs) {
        @Override
        public String toString() {
            return topic + "-" + partition + " offsets " + firstOffset + ".." + lastOffset + " committed by " + memberId
                    + " (generation " + generation + ") " + (byProcessing
                            ? "though no member processed them" : "before any member was sent them");
        }
    }

    private final String groupId;
    private final List<DeliveredTwice> deliveredTwice;
    private final List<Skipped> skipped;

    private GroupHistory(String groupId, List<DeliveredTwice> deliveredTwice, List<Skipped> skipped) {
        this.groupId = groupId;
        this.deliveredTwice = List.copyOf(deliveredTwice);
        this.skipped = List.copyOf(skipped);
    }

    static GroupHistory empty(String groupId) {
        return new GroupHistory(groupId, List.of(), List.of());
    }

    /**
     * @param recordBatches a partition's data batches in its leader's log, base offset to last offset (no transaction
     *     markers, nothing below the log start): the offsets that hold records a member could process
     */
    static GroupHistory check(String groupId, ConsumerHistory history,
            Function<TopicPartition, NavigableMap<Long, Long>> recordBatches) {
        Map<TopicPartition, List<Map.Entry<Delivery, Member>>> byPartition = new LinkedHashMap<>();
        for (Delivery d : history.deliveries()) {
            d.members().stream().filter(m -> m.groupId().equals(groupId)).findFirst().ifPresent(m ->
                    byPartition.computeIfAbsent(d.partition(), k -> new ArrayList<>()).add(Map.entry(d, m)));
        }
        List<DeliveredTwice> twice = new ArrayList<>();
        byPartition.forEach((tp, list) -> twice.addAll(deliveredTwice(tp, list)));
        boolean byProcessing = history.reportsProcessing(groupId);
        List<Skipped> skipped = new ArrayList<>();
        Map<TopicPartition, Long> judgedUpTo = new HashMap<>();
        for (Commit c : history.commits()) {
            TopicPartition tp = c.partition();
            long from = judgedUpTo.getOrDefault(tp, 0L);
            if (!c.groupId().equals(groupId) || c.offset() <= from) {
                continue;
            }
            judgedUpTo.put(tp, c.offset());
            if (byProcessing) {
                skipped.addAll(notProcessed(groupId, history, recordBatches.apply(tp), c, from));
                continue;
            }
            long sentUpTo = byPartition.getOrDefault(tp, List.of()).stream().map(Map.Entry::getKey)
                    .filter(d -> d.timeMs() <= c.timeMs()).mapToLong(Delivery::lastOffset).max().orElse(-1);
            long first = Math.max(from, sentUpTo + 1);
            if (first < c.offset()) {
                skipped.add(new Skipped(tp.topic(), tp.partition(), first, c.offset() - 1, c.memberId(), c.generation(),
                        false, c.timeMs()));
            }
        }
        return new GroupHistory(groupId, twice, skipped);
    }

    /** The record offsets from {@code from} up to commit {@code c} that no member of the group processed, as ranges. */
    private static List<Skipped> notProcessed(String groupId, ConsumerHistory history, NavigableMap<Long, Long> batches,
            Commit c, long from) {
        TopicPartition tp = c.partition();
        List<Skipped> out = new ArrayList<>();
        long first = -1;
        long last = -2;
        Long start = batches.floorKey(from);
        for (Map.Entry<Long, Long> batch : batches.subMap(start == null ? from : start, true, c.offset(), false).entrySet()) {
            for (long o = Math.max(batch.getKey(), from); o <= Math.min(batch.getValue(), c.offset() - 1); o++) {
                if (history.wasProcessed(groupId, tp, o)) {
                    continue;
                }
                if (o != last + 1 && first >= 0) {
                    out.add(new Skipped(tp.topic(), tp.partition(), first, last, c.memberId(), c.generation(), true,
                            c.timeMs()));
                    first = -1;
                }
                if (first < 0) {
                    first = o;
                }
                last = o;
            }
        }
        if (first >= 0) {
            out.add(new Skipped(tp.topic(), tp.partition(), first, last, c.memberId(), c.generation(), true, c.timeMs()));
        }
        return out;
    }

    private static List<DeliveredTwice> deliveredTwice(TopicPartition tp, List<Map.Entry<Delivery, Member>> deliveries) {
        TreeMap<Long, List<Receiver>> sentTo = new TreeMap<>();
        Map<Long, Long> againAt = new HashMap<>();
        for (Map.Entry<Delivery, Member> d : deliveries) {
            Member m = d.getValue();
            for (long o = d.getKey().firstOffset(); o <= d.getKey().lastOffset(); o++) {
                List<Receiver> to = sentTo.computeIfAbsent(o, k -> new ArrayList<>());
                to.add(new Receiver(m.memberId(), m.generation(), m.clientId()));
                if (to.size() == 2) {
                    againAt.put(o, d.getKey().timeMs());
                }
            }
        }
        List<DeliveredTwice> out = new ArrayList<>();
        long first = -1;
        long last = -2;
        List<Receiver> receivers = null;
        for (Map.Entry<Long, List<Receiver>> e : sentTo.entrySet()) {
            if (e.getValue().size() < 2) {
                continue;
            }
            if (e.getKey() == last + 1 && e.getValue().equals(receivers)) {
                last = e.getKey();
                continue;
            }
            if (receivers != null) {
                out.add(new DeliveredTwice(tp.topic(), tp.partition(), first, last, receivers, againAt.get(first)));
            }
            first = e.getKey();
            last = e.getKey();
            receivers = e.getValue();
        }
        if (receivers != null) {
            out.add(new DeliveredTwice(tp.topic(), tp.partition(), first, last, receivers, againAt.get(first)));
        }
        return out;
    }

    /** The group's findings for the HTML timeline, on the group's lane at the time of the delivery or commit. */
    List<dev.samsa.event.Finding> findings() {
        List<dev.samsa.event.Finding> out = new ArrayList<>();
        String lane = "group " + groupId;
        for (DeliveredTwice d : deliveredTwice) {
            Map<String, String> cells = new LinkedHashMap<>();
            cells.put("group", groupId);
            cells.put("topic", d.topic());
            cells.put("partition", Integer.toString(d.partition()));
            cells.put("offsets", range(d.firstOffset(), d.lastOffset()));
            cells.put("sent to", d.receivers().toString());
            out.add(new dev.samsa.event.Finding("delivered-twice", lane, d.againAtMs(), -1, -1,
                    d.lastOffset() - d.firstOffset() + 1, cells, d.toString()));
        }
        for (Skipped s : skipped) {
            Map<String, String> cells = new LinkedHashMap<>();
            cells.put("group", groupId);
            cells.put("topic", s.topic());
            cells.put("partition", Integer.toString(s.partition()));
            cells.put("offsets", range(s.firstOffset(), s.lastOffset()));
            cells.put("committed by", s.memberId() + " (generation " + s.generation() + ")");
            cells.put("committed at", java.time.Instant.ofEpochMilli(s.committedAtMs()).toString());
            cells.put("why skipped", s.byProcessing() ? "no member processed them" : "no member had been sent them");
            out.add(new dev.samsa.event.Finding("skipped", lane, s.committedAtMs(), -1, -1,
                    s.lastOffset() - s.firstOffset() + 1, cells, s.toString()));
        }
        return out;
    }

    static String range(long first, long last) {
        return first == last ? Long.toString(first) : first + ".." + last;
    }

    public String groupId() {
        return groupId;
    }

    /** Records sent to the group's members more than once. */
    public List<DeliveredTwice> deliveredTwice() {
        return deliveredTwice;
    }

    /** Records a commit passed that no member processed (or, without processing reports, was sent). */
    public List<Skipped> skipped() {
        return skipped;
    }

    @Override
    public String toString() {
        return "group " + groupId + ": " + deliveredTwice.size() + " ranges delivered twice, " + skipped.size()
                + " ranges skipped"
                + deliveredTwice.stream().map(d -> "\n  delivered twice " + d).collect(Collectors.joining())
                + skipped.stream().map(s -> "\n  skipped " + s).collect(Collectors.joining());
    }
}
