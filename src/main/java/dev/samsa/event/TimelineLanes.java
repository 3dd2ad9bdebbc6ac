package dev.samsa.event;

import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The lanes of the HTML timeline, read from the events in one pass: the faults (each a bar from when it was applied to
 * when it healed, or a mark), then a lane per broker (up, stopped, isolated), per partition of a user's topic (its
 * leader and leader epoch, its ISR, high-watermark moves), per consumer group (its state, generation and members,
 * joins and leaves), per transactional id (its state), per internal partition ({@code __consumer_offsets}, ...), and
 * one for the rest of the cluster.
 */
final class TimelineLanes {

    enum Kind { FAULTS, BROKER, PARTITION, GROUP, TXN, CLUSTER }

    /**
     * A stretch of a lane's band row, from event {@code from} (-1: from before the first event) to event {@code to} (the
     * next change).
     */
    static final class Band {
        final int row;
        final int from;
        int to = -1;
        final String css;
        final String fill;
        final String label;
        final String shortLabel;
        final String title;
        final String link;
        /** A second line written under the label (a Stable group's members), or null. */
        String detail;

        Band(int row, int from, String css, String fill, String label, String shortLabel, String title, String link) {
            this.row = row;
            this.from = from;
            this.css = css;
            this.fill = fill;
            this.label = label;
            this.shortLabel = shortLabel;
            this.title = title;
            this.link = link;
        }
    }

    /** An event drawn in a lane: {@code shape} says how, {@code label} (may be null) is written beside it. */
    record Mark(int index, String shape, String css, String label) {
    }

    /** A fault in the faults lane: a bar from {@code from} to {@code to} (-1: not healed), or a mark when instant. */
    static final class Span {
        final int from;
        int to = -1;
        final boolean instant;
        final String label;
        int row;

        Span(int from, boolean instant, String label) {
            this.from = from;
            this.instant = instant;
            this.label = label;
        }
    }

    static final class Lane {
        final String name;
        final Kind kind;
        final List<Mark> marks = new ArrayList<>();
        final List<Band> bands = new ArrayList<>();
        final List<Span> spans = new ArrayList<>();
        final Band[] open = new Band[2];
        // Partitions: what is known of the leader and ISR before the next change.
        int leader = Integer.MIN_VALUE;
        int epoch = -1;
        List<Integer> isr;
        int minIsr;
        // Brokers, groups, transactional ids: the state before the next change.
        String state;

        Lane(String name, Kind kind) {
            this.name = name;
            this.kind = kind;
        }

        void band(int row, int from, String css, String fill, String label, String shortLabel, String title, String link) {
            close(row, from);
            Band b = new Band(row, from, css, fill, label, shortLabel, title, link);
            bands.add(b);
            open[row] = b;
        }

        void close(int row, int at) {
            if (open[row] != null) {
                open[row].to = at;
                open[row] = null;
            }
        }
    }

    /** A consumer group's generation as it became Stable, for the page's table of generations. */
    record Generation(String group, int generation, String protocol, String leader, List<String> members, int at) {
    }

    private final Map<String, Lane> lanes = new LinkedHashMap<>();
    private final Map<String, Lane> brokers = new TreeMap<>();
    private final Map<String, Lane> partitions = new TreeMap<>(TimelineLanes::comparePartitions);
    private final Map<String, Lane> groups = new TreeMap<>();
    private final Map<String, Lane> txns = new TreeMap<>();
    private final Lane faults = new Lane("faults", Kind.FAULTS);
    private final Lane cluster = new Lane("cluster", Kind.CLUSTER);
    private final Map<String, Span> openFaults = new HashMap<>();
    private final Map<String, Integer> minIsr = new HashMap<>();
    /** A partition's state at its creation, and the index of the event that created it. */
    private record Created(PartitionState state, int at) {
    }

    private final Map<String, Created> created = new HashMap<>();
    /** Event index to the lane names it is drawn in, the first being where its mark is the link target. */
    private final List<List<String>> lanesOf = new ArrayList<>();
    private final List<Generation> generations = new ArrayList<>();
    /** Each classic generation's assignment as the page writes it, by "group/generation". */
    private final Map<String, String> assignments = new HashMap<>();
    private final Map<String, String> protocols = new HashMap<>();
    private final int size;

    private TimelineLanes(List<TimedEvent> events) {
        size = events.size();
        for (int i = 0; i < events.size(); i++) {
            place(i, events.get(i).event());
        }
        lanes.put(faults.name, faults);
        brokers.forEach((k, v) -> lanes.put(v.name, v));
        partitions.forEach((k, v) -> {
            if (!k.startsWith("__")) {
                lanes.put(k, v);
            }
        });
        groups.forEach(lanes::put);
        txns.forEach(lanes::put);
        partitions.forEach(lanes::putIfAbsent); // the coordinators' internal partitions, after what they coordinate
        lanes.put(cluster.name, cluster);
        lanes.values().removeIf(l -> l.marks.isEmpty() && l.bands.isEmpty() && l.spans.isEmpty()
                && l.kind != Kind.BROKER);
        for (Lane lane : lanes.values()) {
            for (Band b : lane.bands) {
                if (b.to < 0) {
                    b.to = size;
                }
            }
        }
    }

    static TimelineLanes of(List<TimedEvent> events) {
        return new TimelineLanes(events);
    }

    /** The lanes in page order (faults, brokers, partitions, groups, transactional ids, cluster). */
    Map<String, Lane> lanes() {
        return lanes;
    }

    /** A lane for a finding that names one no event has. */
    Lane laneFor(String name) {
        return lanes.computeIfAbsent(name, n -> new Lane(n, n.startsWith("group ") ? Kind.GROUP : Kind.PARTITION));
    }

    List<String> lanesOf(int index) {
        return lanesOf.get(index);
    }

    List<Generation> generations() {
        return generations;
    }

    /** The assignment a classic group's generation distributed, as the page writes it, or null. */
    String assignment(String group, int generation) {
        return assignments.get(group + "/" + generation);
    }

    private static int comparePartitions(String a, String b) {
        // User topics before internal ones; a topic's partitions in number order.
        boolean ia = a.startsWith("__");
        boolean ib = b.startsWith("__");
        if (ia != ib) {
            return ia ? 1 : -1;
        }
        int da = a.lastIndexOf('-');
        int db = b.lastIndexOf('-');
        int byTopic = a.substring(0, da).compareTo(b.substring(0, db));
        return byTopic != 0 ? byTopic
                : Integer.compare(Integer.parseInt(a.substring(da + 1)), Integer.parseInt(b.substring(db + 1)));
    }

    private Lane broker(int id) {
        return brokers.computeIfAbsent(String.format("%09d", id), k -> new Lane("broker " + id, Kind.BROKER));
    }

    private Lane partition(String topic, int p) {
        String name = topic + "-" + p;
        return partitions.computeIfAbsent(name, k -> {
            Lane lane = new Lane(k, Kind.PARTITION);
            lane.minIsr = minIsr.getOrDefault(topic, 0);
            return lane;
        });
    }

    private Lane group(String id) {
        return groups.computeIfAbsent("group " + id, k -> new Lane(k, Kind.GROUP));
    }

    private Lane txn(String id) {
        return txns.computeIfAbsent("txn " + id, k -> new Lane(k, Kind.TXN));
    }

    private void place(int i, ClusterEvent event) {
        List<String> names = new ArrayList<>(2);
        lanesOf.add(names);
        if (fault(i, event)) {
            names.add(faults.name);
        }
        if (event instanceof TopicCreated t) {
            minIsr.put(t.topic(), t.minInsyncReplicas());
            t.initial().forEach(st -> created.put(t.topic() + "-" + st.partition(), new Created(st, i)));
        } else if (event instanceof PartitionsCreated t) {
            t.added().forEach(st -> created.put(t.topic() + "-" + st.partition(), new Created(st, i)));
        } else if (event instanceof LeaderChanged l) {
            leader(i, partition(l.topic(), l.partition()), l);
        } else if (event instanceof IsrShrunk s) {
            isr(i, partition(s.topic(), s.partition()), s.isr(), withOne(s.isr(), s.removed()), "isr-shrunk");
        } else if (event instanceof IsrExpanded s) {
            isr(i, partition(s.topic(), s.partition()), s.isr(), without(s.isr(), s.added()), "isr-expanded");
        } else if (event instanceof HighWatermark h) {
            Lane lane = partition(h.topic(), h.partition());
            start(i, lane);
            lane.marks.add(new Mark(i, "hw", "hw", "hw " + h.highWatermark()));
        } else if (event instanceof GroupStateChanged g) {
            groupState(i, group(g.groupId()), g);
        } else if (event instanceof TxnStateChanged t) {
            txnState(i, txn(t.transactionalId()), t);
        } else if (event instanceof BrokerStarted b) {
            brokerState(i, broker(b.brokerId()), "up", "start");
        } else if (event instanceof BrokerStopped b) {
            brokerState(i, broker(b.brokerId()), "down:" + how(b.how()), how(b.how()));
        } else if (event instanceof BrokerIsolated b) {
            brokerState(i, broker(b.brokerId()), "isolated", "isolated");
        } else if (event instanceof IsolationHealed b) {
            brokerState(i, broker(b.brokerId()), "up", "healed");
        } else if (event instanceof AssignmentDistributed a) {
            List<String> owners = new ArrayList<>();
            a.partitions().forEach((m, ps) -> owners.add(member(m) + ": " + (ps.isEmpty() ? "nothing" : String.join(", ", ps))));
            assignments.put(a.groupId() + "/" + a.generation(), String.join("; ", owners));
        } else if (event instanceof GenerationStarted g) {
            protocols.put(g.groupId() + "/" + g.generation(), g.protocol());
            group(g.groupId()).marks.add(new Mark(i, "dot", "event", "gen " + g.generation()));
        } else if (event instanceof MemberJoined m) {
            group(m.groupId()).marks.add(new Mark(i, "join", "join",
                    "+" + member(EventText.member(m.memberId(), m.groupInstanceId()))));
        } else if (event instanceof MemberRemoved m) {
            group(m.groupId()).marks.add(new Mark(i, "leave", "leave",
                    "\u2212" + member(EventText.member(m.memberId(), m.groupInstanceId()))));
        } else if (event instanceof RebalanceStarted r) {
            group(r.groupId()).marks.add(new Mark(i, "dot", "event", "rebalance"));
        } else if (event instanceof Truncated t) {
            partition(t.topic(), t.partition()).marks.add(new Mark(i, "dot", "truncated",
                    "truncated b" + t.brokerId() + " \u2212" + t.records()));
        }
        for (String name : names(event)) {
            Lane lane = lanes(name, event);
            if (!names.contains(lane.name)) {
                names.add(lane.name);
            }
            if (lane.kind == Kind.PARTITION || lane.kind == Kind.GROUP) {
                start(i, lane);
            }
            // Marks and bands are added in event order: one this event added is the lane's last.
            boolean drawn = !lane.marks.isEmpty() && lane.marks.get(lane.marks.size() - 1).index() == i;
            boolean banded = lane.kind != Kind.PARTITION && lane.bands.stream().skip(Math.max(0, lane.bands.size() - 2))
                    .anyMatch(b -> b.from == i && b.row == 0);
            if (!drawn && !banded && !(event instanceof IsrShrunk || event instanceof IsrExpanded
                    || event instanceof LeaderChanged l && !l.unclean())) {
                lane.marks.add(new Mark(i, isFault(event) ? "fault" : "dot", isFault(event) ? "fault" : "event",
                        shortLabel(event)));
            }
        }
        if (names.isEmpty()) {
            cluster.marks.add(new Mark(i, "dot", "event", null));
            names.add(cluster.name);
        }
    }

    /** The lanes an event concerns, by its fields: group, transactional id, partition, broker. */
    private List<String> names(ClusterEvent event) {
        Map<String, Object> fields = fields(event);
        List<String> out = new ArrayList<>(2);
        if (fields.get("groupId") instanceof String group) {
            out.add("group:" + group);
        } else if (fields.get("transactionalId") instanceof String id) {
            out.add("txn:" + id);
        } else if (fields.get("topic") instanceof String topic && fields.get("partition") instanceof Integer p && p >= 0) {
            out.add("partition:" + topic + "-" + p);
        }
        if (fields.get("brokerId") instanceof Integer broker && broker > 0) {
            out.add("broker:" + broker);
        }
        return out;
    }

    private Lane lanes(String key, ClusterEvent event) {
        String value = key.substring(key.indexOf(':') + 1);
        return switch (key.substring(0, key.indexOf(':'))) {
            case "group" -> group(value);
            case "txn" -> txn(value);
            case "broker" -> broker(Integer.parseInt(value));
            default -> {
                int dash = value.lastIndexOf('-');
                yield partition(value.substring(0, dash), Integer.parseInt(value.substring(dash + 1)));
            }
        };
    }

    private static Map<String, Object> fields(ClusterEvent event) {
        Map<String, Object> fields = new LinkedHashMap<>();
        for (RecordComponent c : event.getClass().getRecordComponents()) {
            try {
                fields.put(c.getName(), c.getAccessor().invoke(event));
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("Cannot read " + c.getName() + " of " + event.type(), e);
            }
        }
        return fields;
    }

    /** A partition lane's first bands, from its creation when the timeline has it. */
    private void start(int i, Lane lane) {
        if (lane.kind != Kind.PARTITION || lane.leader != Integer.MIN_VALUE) {
            return;
        }
        Created c = created.get(lane.name);
        if (c != null) {
            lane.leader = c.state().leader();
            lane.epoch = c.state().leaderEpoch();
            lane.isr = c.state().isr();
            leaderBand(lane, c.at());
            isrBand(lane, c.at());
        }
    }

    private void leader(int i, Lane lane, LeaderChanged l) {
        if (lane.leader == Integer.MIN_VALUE) {
            start(i, lane);
            if (lane.leader == Integer.MIN_VALUE) {
                // Created before the kept events: what came before is what this change left.
                lane.leader = l.previousLeader();
                lane.epoch = -1;
                leaderBand(lane, -1);
            }
        }
        lane.leader = l.leader();
        lane.epoch = l.leaderEpoch();
        leaderBand(lane, i);
        lane.marks.add(new Mark(i, "leader", l.unclean() ? "fault" : "leader-change", l.unclean() ? "unclean election"
                : null));
        if (!l.isr().equals(lane.isr)) {
            lane.isr = l.isr();
            isrBand(lane, i);
        }
    }

    private void isr(int i, Lane lane, List<Integer> isr, List<Integer> before, String css) {
        start(i, lane);
        if (lane.isr == null) {
            lane.isr = before;
            isrBand(lane, -1);
        }
        lane.isr = isr;
        isrBand(lane, i);
        lane.marks.add(new Mark(i, "isr", css, null));
    }

    private static void leaderBand(Lane lane, int from) {
        if (lane.leader < 0) {
            lane.band(0, from, "offline", null, "no leader (offline)", "offline", "no leader", null);
            return;
        }
        String epoch = lane.epoch < 0 ? "" : " \u00b7 epoch " + lane.epoch;
        lane.band(0, from, "leader", TimelineHtml.brokerColour(lane.leader), "leader " + lane.leader + epoch,
                lane.leader + (lane.epoch < 0 ? "" : " e" + lane.epoch), "leader " + lane.leader + epoch, null);
    }

    private static void isrBand(Lane lane, int from) {
        boolean below = lane.minIsr > 0 && lane.isr.size() < lane.minIsr;
        String text = "ISR " + lane.isr + (below ? " < min.insync.replicas " + lane.minIsr : "");
        lane.band(1, from, below ? "isr isr-below" : "isr", null, text,
                lane.isr + (below ? " < min " + lane.minIsr : ""), text, null);
    }

    private void groupState(int i, Lane lane, GroupStateChanged g) {
        if (lane.state == null && lane.bands.isEmpty()) {
            lane.state = g.previousState();
        }
        lane.state = g.state();
        List<String> members = g.members().stream().map(TimelineLanes::member).toList();
        String label = g.state();
        String shortLabel = g.state();
        String link = null;
        if (g.state().equals("Stable")) {
            label = "Stable \u00b7 generation " + g.generation();
            shortLabel = "Stable g" + g.generation();
            link = "gen-" + TimelineHtml.id(g.groupId()) + "-" + g.generation();
            generations.add(new Generation(g.groupId(), g.generation(), protocols.get(g.groupId() + "/" + g.generation()),
                    g.leader(), g.members(), i));
        } else if (!g.state().equals("Empty") && !g.state().equals("Dead")) {
            shortLabel = g.state().replace("Rebalance", "");
        }
        lane.band(0, i, "group-state", TimelineHtml.stateColour(g.state()), label, shortLabel,
                g.state() + " generation " + g.generation() + " members " + g.members(), link);
        if (g.state().equals("Stable")) {
            lane.open[0].detail = members.isEmpty() ? "no members" : String.join(", ", members);
        }
    }

    private void txnState(int i, Lane lane, TxnStateChanged t) {
        lane.band(0, i, "txn-state", TimelineHtml.stateColour(t.state()), t.state() + " \u00b7 producer "
                + t.producerId() + " epoch " + t.producerEpoch(), t.state(), t.state() + " " + t.partitions(), null);
    }

    private void brokerState(int i, Lane lane, String state, String label) {
        if (Objects.equals(state, lane.state)) {
            lane.marks.add(new Mark(i, "dot", "event", label));
            return;
        }
        if (lane.state == null && !state.equals("up")) {
            lane.band(0, -1, "up", null, "up", "up", "up", null); // up from before the kept events
        }
        lane.state = state;
        String css = state.equals("up") ? "up" : state.startsWith("down") ? "down" : "isolated";
        String text = state.equals("up") ? "up" : state.startsWith("down") ? state.substring(5) : "isolated";
        lane.band(0, i, css, null, text, text, text, null);
        if (!state.equals("up")) {
            lane.marks.add(new Mark(i, "fault", "fault", null));
        }
    }

    /** Opens or closes the event's span in the faults lane; true when the event goes in that lane. */
    private boolean fault(int i, ClusterEvent event) {
        String key = null;
        String label = null;
        boolean heal = false;
        boolean instant = false;
        if (event instanceof BrokerStopped s) {
            key = "broker " + s.brokerId();
            label = how(s.how()) + " broker " + s.brokerId();
        } else if (event instanceof BrokerStarted s) {
            key = "broker " + s.brokerId();
            heal = true;
        } else if (event instanceof BrokerIsolated s) {
            key = "isolate " + s.brokerId();
            label = "isolate broker " + s.brokerId() + (s.fromClients() && s.fromBrokers() ? ""
                    : s.fromBrokers() ? " from brokers" : " from clients");
        } else if (event instanceof IsolationHealed s) {
            key = "isolate " + s.brokerId();
            heal = true;
        } else if (event instanceof ReplicationPaused p) {
            key = "pause " + p.topic() + "-" + p.partition() + " " + p.brokerId();
            label = "pause replication " + p.topic() + "-" + p.partition() + " \u2192 broker " + p.brokerId();
        } else if (event instanceof ReplicationResumed p) {
            key = "pause " + p.topic() + "-" + p.partition() + " " + p.brokerId();
            heal = true;
        } else if (event instanceof BrokerLatency l) {
            key = "latency " + l.brokerId();
            heal = l.latency().isZero();
            label = "latency broker " + l.brokerId() + " " + l.latency().toMillis() + " ms";
        } else if (event instanceof RequestsIntercepted r) {
            key = "intercept " + r.api();
            label = "intercept " + (r.api() == null ? "every request" : r.api());
        } else if (event instanceof InterceptionRemoved r) {
            key = "intercept " + r.api();
            heal = true;
        } else if (event instanceof TxnMarkersHeld h) {
            key = "markers " + h.topic() + "-" + h.partition() + " " + h.leader();
            label = "hold txn markers " + (h.topic() == null ? "of broker " + h.leader() : h.topic() + "-" + h.partition());
        } else if (event instanceof TxnMarkersReleased h) {
            key = "markers " + h.topic() + "-" + h.partition() + " " + h.leader();
            heal = true;
        } else if (event instanceof FaultInjected f) {
            instant = true;
            label = f.api() + " \u2192 b" + f.brokerId() + " " + f.error();
        } else if (event instanceof FailuresScheduled f) {
            instant = true;
            label = "fail next " + f.count() + " " + f.api() + " " + f.error();
        } else if (event instanceof ClientConnectionsDropped d) {
            instant = true;
            label = "drop connections b" + d.brokerId();
        } else if (event instanceof SaslSessionsExpired e) {
            instant = true;
            label = "expire SASL sessions b" + e.brokerId();
        } else if (event instanceof CertificateRotated c) {
            instant = true;
            label = "rotate certificate b" + c.brokerId();
        } else if (event instanceof TxnCoordinatorFaultArmed) {
            instant = true;
            label = event.details();
        } else {
            return false;
        }
        if (instant) {
            faults.spans.add(new Span(i, true, label));
            faults.marks.add(new Mark(i, "fault", "fault", label));
            return true;
        }
        if (heal) {
            return end(key, i);
        }
        end(key, i);
        Span span = new Span(i, false, label);
        faults.spans.add(span);
        faults.marks.add(new Mark(i, "fault", "fault", null));
        openFaults.put(key, span);
        return true;
    }

    private boolean end(String key, int at) {
        Span open = openFaults.remove(key);
        if (open == null) {
            return false;
        }
        open.to = at;
        faults.marks.add(new Mark(at, "heal", "heal", null));
        return true;
    }

    static boolean isFault(ClusterEvent event) {
        if (event instanceof BrokerLatency l) {
            return !l.latency().isZero();
        }
        if (event instanceof LeaderChanged l) {
            return l.unclean();
        }
        return event instanceof BrokerStopped || event instanceof BrokerIsolated || event instanceof ReplicationPaused
                || event instanceof FaultInjected || event instanceof ClientConnectionsDropped
                || event instanceof SaslSessionsExpired || event instanceof CertificateRotated
                || event instanceof RequestsIntercepted || event instanceof FailuresScheduled
                || event instanceof TxnMarkersHeld || event instanceof TxnCoordinatorFaultArmed;
    }

    private static String shortLabel(ClusterEvent event) {
        if (event instanceof BrokerStopped s) {
            return how(s.how());
        } else if (event instanceof BrokerStarted) {
            return "start";
        } else if (event instanceof ReplicationPaused p) {
            return "paused \u2192 b" + p.brokerId();
        } else if (event instanceof ReplicationResumed p) {
            return "resumed \u2192 b" + p.brokerId();
        } else if (event instanceof StaleLeaderAppend a) {
            return "stale leader b" + a.brokerId() + " appends";
        } else if (event instanceof MemberDisconnected m) {
            return "disconnected " + member(EventText.member(m.memberId(), m.groupInstanceId()));
        } else if (event instanceof RetentionDeleted) {
            return "retention";
        } else if (event instanceof Compacted) {
            return "compacted";
        } else if (event instanceof RecordsDeleted) {
            return "records deleted";
        }
        return null;
    }

    private static String how(String how) {
        if (how.equals("CRASH")) {
            return "crash";
        }
        return how.toLowerCase(java.util.Locale.ROOT).replace('_', ' ');
    }

    /**
     * A member as a person tells it apart: a static member's instance id, else its member id without the UUID Kafka
     * appends to the client id.
     */
    static String member(String member) {
        int paren = member.indexOf('(');
        if (paren > 0 && member.endsWith(")")) {
            return member.substring(paren + 1, member.length() - 1);
        }
        return member.replaceFirst("-[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$", "");
    }

    private static List<Integer> withOne(List<Integer> isr, int broker) {
        List<Integer> out = new ArrayList<>(isr);
        if (!out.contains(broker)) {
            out.add(broker);
        }
        return out;
    }

    private static List<Integer> without(List<Integer> isr, int broker) {
        List<Integer> out = new ArrayList<>(isr);
        out.remove(Integer.valueOf(broker));
        return out;
    }
}
