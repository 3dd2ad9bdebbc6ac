package dev.samsa;

import dev.samsa.cluster.ConsumerHistory.Commit;
import dev.samsa.cluster.ConsumerHistory.Delivery;
import dev.samsa.event.MemberJoined;
import dev.samsa.event.TimedEvent;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.kafka.common.TopicPartition;

/**
 * One consumer group's side of the history ({@link History#group}): records the brokers sent to the group's members
 * more than once, and offsets the group committed before any member was sent the records below them (skipped).
 *
 * <p>The broker sees deliveries, not processing: a record sent twice may have been processed once (a consumer that
 * fetched ahead, then lost the partition), and a record sent once, then committed, may never have been processed (a
 * consumer that auto-committed, then crashed). A member is known by the client id it joined the group with.
 */
public final class GroupHistory {

    /** Offsets of a partition sent to the group more than once, to these clients, in order. */
    public record DeliveredTwice(String topic, int partition, long firstOffset, long lastOffset, List<String> clients) {
        @Override
        public String toString() {
            return topic + "-" + partition + " offsets " + firstOffset + ".." + lastOffset + " sent to " + clients;
        }
    }

    /** Offsets committed by {@code memberId} (generation) before any member of the group was sent them. */
    public record Skipped(String topic, int partition, long firstOffset, long lastOffset, String memberId,
            int generation) {
        @Override
        public String toString() {
            return topic + "-" + partition + " offsets " + firstOffset + ".." + lastOffset + " committed by " + memberId
                    + " (generation " + generation + ") before any member was sent them";
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

    static GroupHistory check(String groupId, List<Delivery> deliveries, List<Commit> commits, List<TimedEvent> events) {
        Set<String> clients = new LinkedHashSet<>();
        for (TimedEvent e : events) {
            if (e.event() instanceof MemberJoined j && j.groupId().equals(groupId)) {
                clients.add(j.clientId());
            }
        }
        Map<TopicPartition, List<Delivery>> byPartition = new LinkedHashMap<>();
        deliveries.stream().filter(d -> clients.contains(d.clientId()))
                .forEach(d -> byPartition.computeIfAbsent(d.partition(), k -> new ArrayList<>()).add(d));
        List<DeliveredTwice> twice = new ArrayList<>();
        byPartition.forEach((tp, list) -> twice.addAll(deliveredTwice(tp, list)));
        List<Skipped> skipped = new ArrayList<>();
        for (Commit c : commits) {
            if (!c.groupId().equals(groupId)) {
                continue;
            }
            long sentUpTo = byPartition.getOrDefault(c.partition(), List.of()).stream()
                    .filter(d -> d.timeMs() <= c.timeMs()).mapToLong(Delivery::lastOffset).max().orElse(-1);
            long firstCommittable = Math.max(sentUpTo + 1, skipped.stream()
                    .filter(s -> s.topic().equals(c.partition().topic()) && s.partition() == c.partition().partition())
                    .mapToLong(s -> s.lastOffset() + 1).max().orElse(0));
            if (c.offset() > firstCommittable) {
                skipped.add(new Skipped(c.partition().topic(), c.partition().partition(), firstCommittable, c.offset() - 1,
                        c.memberId(), c.generation()));
            }
        }
        return new GroupHistory(groupId, twice, skipped);
    }

    private static List<DeliveredTwice> deliveredTwice(TopicPartition tp, List<Delivery> deliveries) {
        TreeMap<Long, List<String>> sentTo = new TreeMap<>();
        for (Delivery d : deliveries) {
            for (long o = d.firstOffset(); o <= d.lastOffset(); o++) {
                sentTo.computeIfAbsent(o, k -> new ArrayList<>()).add(d.clientId());
            }
        }
        List<DeliveredTwice> out = new ArrayList<>();
        long first = -1;
        long last = -2;
        List<String> clients = null;
        for (Map.Entry<Long, List<String>> e : sentTo.entrySet()) {
            if (e.getValue().size() < 2) {
                continue;
            }
            if (e.getKey() == last + 1 && e.getValue().equals(clients)) {
                last = e.getKey();
                continue;
            }
            if (clients != null) {
                out.add(new DeliveredTwice(tp.topic(), tp.partition(), first, last, clients));
            }
            first = e.getKey();
            last = e.getKey();
            clients = e.getValue();
        }
        if (clients != null) {
            out.add(new DeliveredTwice(tp.topic(), tp.partition(), first, last, clients));
        }
        return out;
    }

    public String groupId() {
        return groupId;
    }

    /** Records sent to the group's members more than once. */
    public List<DeliveredTwice> deliveredTwice() {
        return deliveredTwice;
    }

    /** Offsets committed before any member was sent the records below them. */
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
