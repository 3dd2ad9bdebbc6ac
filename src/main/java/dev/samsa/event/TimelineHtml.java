package dev.samsa.event;

import dev.samsa.event.TimelineLanes.Band;
import dev.samsa.event.TimelineLanes.Generation;
import dev.samsa.event.TimelineLanes.Kind;
import dev.samsa.event.TimelineLanes.Lane;
import dev.samsa.event.TimelineLanes.Mark;
import dev.samsa.event.TimelineLanes.Span;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The timeline as one self-contained HTML page, well-formed XML so a tool can parse it, that fetches nothing and
 * reads without its small script: a title naming the test and the seed; lanes over a cluster-time axis (see
 * {@link TimelineAxis}) whose bands and labels say what hover text used to (each partition's leader and epoch and its
 * ISR, each group's state, generation and members, each fault from when it was applied to when it healed, the history
 * check's findings with their count); a legend; then every event as a table row, linked to its mark and back; then the
 * findings (each lost record with its producer, sequence, acknowledgement and the fault that lost it) and each group's
 * generations. The script only filters the event table and scrolls a clicked link's mark into view.
 */
final class TimelineHtml {

    /** Beyond this many events only the latest are drawn: a page a browser opens at once. */
    static final int MAX_EVENTS = 5_000;

    private static final int LABEL = 210;
    /** The width the lanes fill when there are few events: a 1600-pixel window less the lane names. */
    private static final int CHART = 1340;
    private static final int AXIS = 40;
    private static final int FAULT_ROW = 22;
    private static final int CHUNK = 200;
    private static final double CHAR = 6.3;
    private static final String[] BROKER_COLOURS = {"#4e79a7", "#59a14f", "#b07aa1", "#e0b000", "#76b7b2", "#9c755f",
        "#ff9da7", "#f28e2b", "#7f7f7f"};
    private static final Map<String, String> STATE_COLOURS = Map.ofEntries(
            // consumer groups, classic and consumer protocol
            Map.entry("Empty", "#e3e3e3"), Map.entry("PreparingRebalance", "#fdc086"),
            Map.entry("CompletingRebalance", "#ffe38a"), Map.entry("Stable", "#a6dba0"), Map.entry("Dead", "#8c8c8c"),
            Map.entry("Assigning", "#fdc086"), Map.entry("Reconciling", "#ffe38a"), Map.entry("NotReady", "#e3e3e3"),
            // transactional ids
            Map.entry("Ongoing", "#9ecae1"), Map.entry("PrepareCommit", "#c7e9c0"), Map.entry("CompleteCommit", "#74c476"),
            Map.entry("PrepareAbort", "#fcbba1"), Map.entry("CompleteAbort", "#fb8a6a"),
            Map.entry("PrepareEpochFence", "#fdd0a2"));
    private static final Map<String, String> FINDING_NAMES = Map.of("lost", "lost", "duplicate", "duplicated",
            "out-of-order", "out of order", "delivered-twice", "delivered twice", "skipped", "skipped");
    private static final Map<String, String> FINDING_TITLES = Map.of(
            "lost", "Acknowledged records lost",
            "duplicate", "Batches one idempotent producer wrote twice",
            "out-of-order", "Acknowledged batches out of sequence",
            "delivered-twice", "Records delivered to a group twice",
            "skipped", "Records a group skipped");

    private TimelineHtml() {
    }

    static String render(ClusterTimeline.Snapshot snapshot, List<Finding> findings) {
        return render(snapshot, findings, null);
    }

    /** @param title what the page is about (a test's class and method), or null */
    static String render(ClusterTimeline.Snapshot snapshot, List<Finding> findings, String title) {
        List<TimedEvent> events = snapshot.events();
        long base = snapshot.dropped();
        long notDrawn = snapshot.dropped();
        if (events.size() > MAX_EVENTS) {
            notDrawn += events.size() - MAX_EVENTS;
            base += events.size() - MAX_EVENTS;
            events = events.subList(events.size() - MAX_EVENTS, events.size());
        }
        TimelineLanes lanes = TimelineLanes.of(events);
        TimelineAxis axis = new TimelineAxis(events, 0, CHART);
        Map<String, List<Flag>> flags = flags(findings, lanes, axis, base, events.size());
        Lane faultLane = lanes.lanes().get("faults");
        // Wide enough for the labels of the last faults too.
        int width = faultLane == null ? axis.end() : Math.max(axis.end(), pack(faultLane, axis));
        StringBuilder left = new StringBuilder();
        Layers svg = new Layers(new StringBuilder(), new StringBuilder(), new StringBuilder());
        Set<Long> ids = new java.util.HashSet<>();
        int y = AXIS;
        int row = 0;
        for (Lane lane : lanes.lanes().values()) {
            int height = height(lane);
            String name = escape(lane.name);
            svg.under.append("<g class=\"lane\" data-lane=\"").append(name).append("\">\n");
            svg.over.append("<g class=\"marks\" data-lane=\"").append(name).append("\">\n");
            svg.text.append("<g class=\"labels\" data-lane=\"").append(name).append("\">\n");
            svg.under.append("<rect class=\"row").append(row++ % 2 == 0 ? "" : " odd").append("\" x=\"0\" y=\"").append(y)
                    .append("\" width=\"").append(width).append("\" height=\"").append(height).append("\"/>\n");
            laneName(left, lane, y, height);
            if (lane.kind == Kind.FAULTS) {
                faults(svg, lane, axis, y, base, events, ids);
            } else {
                marks(svg, lane, lanes, axis, y, base, events, ids); // first: a mark is its event's link target
                bands(svg, lane, lanes, axis, y, base, ids);
            }
            for (Flag f : flags.getOrDefault(lane.name, List.of())) {
                flag(svg, f, y);
            }
            svg.under.append("</g>\n");
            svg.over.append("</g>\n");
            svg.text.append("</g>\n");
            y += height;
        }
        int height = y + 6;
        StringBuilder page = new StringBuilder(events.size() * 400 + 10_000);
        head(page, title);
        summary(page, events, findings, notDrawn, title);
        page.append("<div class=\"chart\">\n<svg class=\"names\" xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(LABEL)
                .append("\" height=\"").append(height).append("\">\n<text class=\"axis-name\" x=\"6\" y=\"22\">cluster time (UTC)</text>\n")
                .append(left).append("</svg>\n<div class=\"scroll\" id=\"scroll\">\n<svg class=\"lanes\" xmlns=\"http://www.w3.org/2000/svg\" width=\"")
                .append(width).append("\" height=\"").append(height).append("\">\n");
        page.append("<defs><pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
                + "<rect width=\"6\" height=\"6\" fill=\"#f3f3f3\"/><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#d0d0d0\" stroke-width=\"2\"/>"
                + "</pattern></defs>\n");
        // Bands and bars, then the breaks over them (no event falls in a break), then marks, then all text.
        axis(page, axis, height);
        page.append(svg.under);
        breaks(page, axis, height);
        page.append(svg.over).append(svg.text);
        page.append("</svg>\n</div>\n</div>\n");
        legend(page, lanes);
        eventTable(page, events, lanes, base, notDrawn);
        findingTables(page, findings, base, events);
        generations(page, lanes, base);
        page.append(SCRIPT).append("</body>\n</html>\n");
        return page.toString();
    }

    // --- the page around the chart

    private static void head(StringBuilder page, String title) {
        String name = title == null ? "Samsa cluster timeline" : "Samsa timeline: " + title;
        page.append("<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>")
                .append(escape(name)).append("</title>\n<style>\n").append(STYLE).append("</style>\n</head>\n<body>\n<h1>")
                .append(escape(name)).append("</h1>\n");
    }

    private static void summary(StringBuilder page, List<TimedEvent> events, List<Finding> findings, long notDrawn,
            String title) {
        String seed = null;
        String brokers = null;
        for (TimedEvent e : events) {
            if (e.event() instanceof ClusterStarted s) {
                seed = Long.toString(s.seed());
                brokers = s.brokers() + (s.brokers() == 1 ? " broker" : " brokers");
            }
        }
        page.append("<p class=\"facts\">");
        if (seed != null) {
            page.append("<span class=\"seed\">seed ").append(seed).append("</span> \u00b7 ").append(brokers).append(" \u00b7 ");
        }
        page.append(events.size()).append(" events");
        if (!events.isEmpty()) {
            page.append(", cluster time ").append(Instant.ofEpochMilli(events.get(0).timeMs())).append(" to ")
                    .append(Instant.ofEpochMilli(events.get(events.size() - 1).timeMs()));
        }
        if (notDrawn > 0) {
            page.append(" (").append(notDrawn).append(" earlier events not kept or not drawn)");
        }
        page.append("</p>\n<p class=\"verdict\">");
        Map<String, Long> counts = new LinkedHashMap<>();
        findings.forEach(f -> counts.merge(f.kind(), f.records(), Long::sum));
        if (counts.isEmpty()) {
            page.append("History check: nothing lost, duplicated, out of sequence or skipped.");
        } else {
            page.append("<strong>History check: ");
            List<String> parts = new ArrayList<>();
            counts.forEach((kind, n) -> parts.add("<a href=\"#findings-" + kind + "\">" + n + " "
                    + (kind.equals("duplicate") || kind.equals("out-of-order") ? "batch" + (n == 1 ? "" : "es")
                            : "record" + (n == 1 ? "" : "s")) + " " + FINDING_NAMES.getOrDefault(kind, kind) + "</a>"));
            page.append(String.join(", ", parts)).append("</strong>");
        }
        page.append("</p>\n<p class=\"how\">Left to right in cluster time: events of one millisecond stand side by side "
                + "in the order they happened, a quiet stretch longer than " + TimelineAxis.BREAK_MS + " ms is a hatched "
                + "break labelled with its length. Click a mark for its row in the event table below, a row's number for "
                + "its mark.</p>\n");
    }

    private static void legend(StringBuilder page, TimelineLanes lanes) {
        Set<Integer> brokers = new java.util.TreeSet<>();
        Set<String> states = new LinkedHashSet<>();
        for (Lane lane : lanes.lanes().values()) {
            if (lane.kind == Kind.BROKER) {
                brokers.add(Integer.parseInt(lane.name.substring("broker ".length())));
            }
            for (Band b : lane.bands) {
                if (b.css.equals("leader")) {
                    brokers.add(Integer.parseInt(b.label.split(" ")[1]));
                }
            }
        }
        for (String s : List.of("Empty", "PreparingRebalance", "CompletingRebalance", "Stable", "Dead")) {
            states.add(s);
        }
        for (Lane lane : lanes.lanes().values()) {
            lane.bands.stream().filter(b -> b.css.equals("group-state") || b.css.equals("txn-state"))
                    .forEach(b -> states.add(b.shortLabel.startsWith("Stable") ? "Stable" : b.title.split(" ")[0]));
        }
        page.append("<div class=\"legend\" id=\"legend\"><h2>Legend</h2>\n<ul>\n<li>Leader band of a partition, by broker: ");
        for (int b : brokers) {
            page.append("<span class=\"sw\" style=\"background:").append(brokerColour(b)).append("\"></span>broker ")
                    .append(b).append(" ");
        }
        page.append("<span class=\"sw offline-sw\"></span>no leader; the leader epoch is written in the band, a black "
                + "line marks each election.</li>\n<li>ISR band under it: <span class=\"sw\" style=\"background:#cfcfcf\"></span>"
                + "its members, <span class=\"sw\" style=\"background:#d7301f\"></span>fewer than min.insync.replicas; "
                + "<span class=\"sym hw\">|</span> a high-watermark move.</li>\n<li>Group and transaction states: ");
        for (String s : states) {
            page.append("<span class=\"sw\" style=\"background:").append(stateColour(s)).append("\"></span>").append(escape(s))
                    .append(" ");
        }
        page.append("(a Stable band names its generation and members, and links to the generations table); <span class=\"sym join\">\u25b2</span> a member joined, <span class=\"sym leave\">\u25bc</span> a member "
                + "left.</li>\n<li>Brokers: <span class=\"sw\" style=\"background:#c7e9c0\"></span>up "
                + "<span class=\"sw\" style=\"background:#f4a6a6\"></span>stopped (crash, power loss, shutdown, fenced) "
                + "<span class=\"sw\" style=\"background:#fdd0a2\"></span>isolated.</li>\n<li>Faults: "
                + "<span class=\"sym fault\">\u25a0</span> applied, a bar <span class=\"sw fault-sw\"></span> while it "
                + "lasts, <span class=\"sym heal\">\u25c6</span> healed.</li>\n<li>History check: "
                + "<span class=\"sym lost\">\u25bc</span> acknowledged records lost, duplicated, out of sequence or skipped, "
                + "with their count; its table is under the events.</li>\n<li><span class=\"sw\" style=\"background:#e8e8e8\">"
                + "</span>a hatched break: cluster time with nothing in it, compressed, labelled with its length.</li>\n"
                + "</ul></div>\n");
    }

    private static void eventTable(StringBuilder page, List<TimedEvent> events, TimelineLanes lanes, long base, long notDrawn) {
        page.append("<h2 id=\"events\">Events</h2>\n<div id=\"filters\" class=\"filters\" hidden=\"hidden\">Lane <select id=\"lane\">"
                + "<option value=\"\">all</option>");
        for (String name : lanes.lanes().keySet()) {
            page.append("<option>").append(escape(name)).append("</option>");
        }
        page.append("</select> Event <select id=\"kind\"><option value=\"\">all</option>");
        new java.util.TreeSet<>(events.stream().map(TimedEvent::type).toList())
                .forEach(t -> page.append("<option>").append(escape(t)).append("</option>"));
        page.append("</select> <span id=\"shown\"></span></div>\n");
        if (notDrawn > 0) {
            page.append("<p>").append(notDrawn).append(" earlier events are not in this page.</p>\n");
        }
        // In tables of CHUNK rows, each laid out only when scrolled to (content-visibility; a table's own bodies cannot
        // be skipped so): a page of 5,000 events opens at once. Fixed column widths keep the tables aligned.
        String columns = "<colgroup><col class=\"c-n\"/><col class=\"c-time\"/><col class=\"c-lane\"/><col class=\"c-type\"/>"
                + "<col/></colgroup>";
        page.append("<div class=\"event-table\" id=\"event-table\">\n");
        for (int from = 0; from < Math.max(1, events.size()); from += CHUNK) {
            page.append("<div class=\"chunk\"><table class=\"events\">").append(columns);
            if (from == 0) {
                page.append("<thead><tr><th>#</th><th>cluster time</th><th>lane</th><th>event</th><th>details</th></tr></thead>");
            }
            page.append("\n<tbody>\n");
            for (int i = from; i < Math.min(events.size(), from + CHUNK); i++) {
                TimedEvent e = events.get(i);
                long pos = base + i;
                List<String> in = lanes.lanesOf(i);
                page.append("<tr id=\"r").append(pos).append("\" data-lane=\"").append(escape(String.join("|", in)))
                        .append("\" data-kind=\"").append(escape(e.type())).append("\"")
                        .append(TimelineLanes.isFault(e.event()) ? " class=\"fault-row\"" : "").append("><td><a href=\"#e")
                        .append(pos).append("\">").append(pos).append("</a></td><td>").append(Instant.ofEpochMilli(e.timeMs()))
                        .append("</td><td>").append(escape(String.join(", ", in))).append("</td><td>").append(escape(e.type()))
                        .append("</td><td>").append(escape(e.details())).append("</td></tr>\n");
            }
            page.append("</tbody></table></div>\n");
        }
        page.append("</div>\n");
    }

    private static void findingTables(StringBuilder page, List<Finding> findings, long base, List<TimedEvent> events) {
        page.append("<h2 id=\"findings\">Findings of the history check</h2>\n");
        if (findings.isEmpty()) {
            page.append("<p>None: every acknowledged record is in its partition's log, none twice or out of sequence, and "
                    + "no group skipped a record or was sent one twice.</p>\n");
            return;
        }
        Map<String, List<Finding>> byKind = new LinkedHashMap<>();
        findings.forEach(f -> byKind.computeIfAbsent(f.kind(), k -> new ArrayList<>()).add(f));
        byKind.forEach((kind, list) -> {
            long records = list.stream().mapToLong(Finding::records).sum();
            page.append("<h3 id=\"findings-").append(id(kind)).append("\">")
                    .append(escape(FINDING_TITLES.getOrDefault(kind, kind))).append(" (").append(records).append(")</h3>\n");
            Set<String> columns = new LinkedHashSet<>();
            list.forEach(f -> columns.addAll(f.columns().keySet()));
            boolean lost = kind.equals("lost");
            page.append("<table class=\"findings ").append(id(kind)).append("\"><thead><tr>");
            columns.forEach(c -> page.append("<th>").append(escape(c)).append("</th>"));
            page.append("<th>").append(lost ? "lost at" : "at").append("</th><th>").append(lost ? "lost by" : "fault before it")
                    .append("</th></tr></thead>\n<tbody>\n");
            int n = 0;
            for (Finding f : list) {
                page.append("<tr id=\"f-").append(id(kind)).append('-').append(n++).append("\" data-lane=\"")
                        .append(escape(f.lane())).append("\">");
                columns.forEach(c -> page.append("<td>").append(escape(f.columns().getOrDefault(c, ""))).append("</td>"));
                page.append("<td class=\"at\">").append(eventLink(f.at(), base, events, true)).append("</td><td class=\"cause\">")
                        .append(eventLink(f.cause(), base, events, false)).append("</td></tr>\n");
            }
            page.append("</tbody></table>\n");
        });
    }

    private static String eventLink(long position, long base, List<TimedEvent> events, boolean typeOnly) {
        int index = (int) (position - base);
        if (position < 0 || index < 0 || index >= events.size()) {
            return position < 0 ? "" : "event " + position + " (not in this page)";
        }
        TimedEvent e = events.get(index);
        String text = typeOnly ? e.type() + " " + e.details() : e.type() + " " + e.details();
        return "<a href=\"#e" + position + "\">" + escape(Instant.ofEpochMilli(e.timeMs()) + " " + text) + "</a>";
    }

    private static void generations(StringBuilder page, TimelineLanes lanes, long base) {
        List<Generation> generations = lanes.generations();
        if (generations.isEmpty()) {
            return;
        }
        page.append("<h2 id=\"generations\">Consumer group generations</h2>\n<p>Each time a group became Stable: its "
                + "generation (member epoch for the consumer protocol), leader, members and "
                + "the partitions each member owns. The members written in a Stable band link here.</p>\n"
                + "<table class=\"generations\"><thead><tr><th>group</th><th>generation</th><th>protocol</th><th>leader</th>"
                + "<th>members</th><th>assignment</th><th>Stable at</th></tr></thead>\n<tbody>\n");
        Set<String> ids = new java.util.HashSet<>();
        for (Generation g : generations) {
            String rowId = "gen-" + id(g.group()) + "-" + g.generation();
            page.append("<tr").append(ids.add(rowId) ? " id=\"" + rowId + "\"" : "").append("><td>").append(escape(g.group()))
                    .append("</td><td>").append(g.generation()).append("</td><td>")
                    .append(escape(g.protocol() == null ? "" : g.protocol())).append("</td><td>")
                    .append(escape(g.leader() == null ? "" : g.leader())).append("</td><td>")
                    .append(escape(String.join(", ", g.members()))).append("</td><td>")
                    .append(escape(lanes.assignment(g.group(), g.generation()) == null ? "" : lanes.assignment(g.group(), g.generation())))
                    .append("</td><td><a href=\"#e").append(base + g.at())
                    .append("\">event ").append(base + g.at()).append("</a></td></tr>\n");
        }
        page.append("</tbody></table>\n");
    }

    // --- the chart

    private static int height(Lane lane) {
        return switch (lane.kind) {
            case FAULTS -> Math.max(40, rows(lane) * FAULT_ROW + 8);
            case BROKER -> 32;
            case PARTITION -> 64;
            case GROUP -> 60;
            case TXN -> 34;
            case CLUSTER -> 26;
        };
    }

    private static int rows(Lane lane) {
        return lane.spans.stream().mapToInt(s -> s.row + 1).max().orElse(1);
    }

    private static void laneName(StringBuilder left, Lane lane, int y, int height) {
        left.append("<rect class=\"name-row\" x=\"0\" y=\"").append(y).append("\" width=\"").append(LABEL)
                .append("\" height=\"").append(height).append("\"/>\n<text class=\"name\" x=\"6\" y=\"").append(y + 18)
                .append("\">").append(escape(fit(lane.name, LABEL - 12, 7.2))).append("</text>\n");
        String sub = switch (lane.kind) {
            case PARTITION -> "leader \u00b7 ISR" + (lane.minIsr > 0 ? " (min " + lane.minIsr + ")" : "") + " \u00b7 hw";
            case GROUP -> "state \u00b7 members";
            case TXN -> "transaction state";
            case FAULTS -> "applied \u2192 healed";
            default -> null;
        };
        if (sub != null) {
            left.append("<text class=\"sub\" x=\"6\" y=\"").append(y + 32).append("\">").append(escape(sub)).append("</text>\n");
        }
    }

    private static void axis(StringBuilder svg, TimelineAxis axis, int height) {
        svg.append("<g class=\"axis\">\n<line class=\"axis-line\" x1=\"0\" y1=\"").append(AXIS - 6).append("\" x2=\"")
                .append(axis.end()).append("\" y2=\"").append(AXIS - 6).append("\"/>\n");
        for (TimelineAxis.Tick t : axis.ticks()) {
            svg.append("<line class=\"tick\" x1=\"").append(t.x()).append("\" y1=\"").append(AXIS - (t.labelled() ? 14 : 10))
                    .append("\" x2=\"").append(t.x()).append("\" y2=\"").append(AXIS - 6).append("\"/>\n");
            if (t.labelled()) {
                svg.append("<line class=\"grid\" x1=\"").append(t.x()).append("\" y1=\"").append(AXIS).append("\" x2=\"")
                        .append(t.x()).append("\" y2=\"").append(height).append("\"/>\n<text class=\"tick-label\" x=\"")
                        .append(t.x() - 4).append("\" y=\"").append(AXIS - 17).append("\">")
                        .append(TimelineAxis.tickLabel(t.timeMs())).append("</text>\n");
            }
        }
        svg.append("</g>\n");
    }

    private static void breaks(StringBuilder svg, TimelineAxis axis, int height) {
        for (TimelineAxis.Break b : axis.breaks()) {
            String length = TimelineAxis.duration(b.ms());
            svg.append("<g class=\"break\" data-ms=\"").append(b.ms()).append("\"><rect class=\"gap\" x=\"").append(b.x0())
                    .append("\" y=\"").append(AXIS - 6).append("\" width=\"").append(b.x1() - b.x0()).append("\" height=\"")
                    .append(height - AXIS + 6).append("\"><title>").append(length).append(" with no event</title></rect>")
                    .append("<rect class=\"gap-label-bg\" x=\"").append(b.x0()).append("\" y=\"").append(AXIS - 13)
                    .append("\" width=\"").append(b.x1() - b.x0()).append("\" height=\"14\"/>")
                    .append("<text class=\"gap-label\" x=\"").append((b.x0() + b.x1()) / 2).append("\" y=\"").append(AXIS - 2)
                    .append("\">").append(length).append("</text></g>\n");
        }
    }

    /** The band rows of a broker, partition, group or transaction lane, with what each stretch is written in it. */
    private static void bands(Layers out, Lane lane, TimelineLanes lanes, TimelineAxis axis, int y, long base,
            Set<Long> ids) {
        for (Band b : lane.bands) {
            int x0 = b.from < 0 ? axis.start() : axis.x(b.from);
            int x1 = axis.x(b.to);
            if (x1 <= x0) {
                continue;
            }
            int top = lane.kind != Kind.PARTITION ? y + 5 : b.row == 0 ? y + 8 : y + 30;
            int h = lane.kind == Kind.GROUP ? 32 : lane.kind != Kind.PARTITION ? 22 : b.row == 0 ? 20 : 13;
            // A state change drawn as a band alone (no mark) is where its table row links to, and links back.
            boolean target = b.from >= 0 && lanes.lanesOf(b.from).get(0).equals(lane.name) && ids.add(base + b.from);
            if (target) {
                out.under.append("<a href=\"#r").append(base + b.from).append("\">");
            }
            out.under.append("<rect class=\"band ").append(b.css).append('"')
                    .append(target ? " id=\"e" + (base + b.from) + "\"" : "").append(" x=\"").append(x0).append("\" y=\"")
                    .append(top).append("\" width=\"").append(x1 - x0).append("\" height=\"").append(h).append('"');
            if (b.fill != null) {
                out.under.append(" style=\"fill:").append(b.fill).append('"');
            }
            out.under.append("><title>").append(escape(b.title)).append("</title></rect>");
            if (target) {
                out.under.append("</a>");
            }
            out.under.append('\n');
            // Written in each stretch between breaks where it fits, so the far side of a long jump is labelled too.
            double size = b.row == 1 ? 5.4 : CHAR;
            int baseline = lane.kind == Kind.GROUP ? top + 14 : top + h - (b.row == 1 ? 3 : 6);
            int from = x0;
            int inset = lane.kind == Kind.BROKER ? 8 : 4; // clear of the mark at the band's start
            while (from < x1) {
                int until = visibleUntil(axis, from, x1);
                int room = until - from - inset - 3;
                String text = b.label.length() * size <= room ? b.label
                        : b.shortLabel != null && b.shortLabel.length() * size <= room ? b.shortLabel
                        : room >= 4 * size ? fit(b.label, room, size) : null;
                if (text != null) {
                    out.text.append("<text class=\"band-label ").append(b.css).append(dark(b) ? " on-dark" : "")
                            .append("\" x=\"").append(from + inset).append("\" y=\"").append(baseline).append("\">")
                            .append(escape(text)).append("</text>\n");
                }
                if (b.detail != null && room >= 4 * 5.6) {
                    // The members link to the generation's row of the generations table.
                    out.text.append(b.link == null ? "" : "<a href=\"#" + b.link + "\">")
                            .append("<text class=\"band-detail\" x=\"").append(from + inset).append("\" y=\"")
                            .append(top + 27).append("\">").append(escape(fit(b.detail, room, 5.6))).append("</text>")
                            .append(b.link == null ? "" : "</a>").append('\n');
                }
                from = nextAfterBreak(axis, until);
                inset = 4;
            }
        }
    }

    /** The end of the break that starts at x, or past everything when none does. */
    private static int nextAfterBreak(TimelineAxis axis, int x) {
        for (TimelineAxis.Break b : axis.breaks()) {
            if (b.x0() == x) {
                return b.x1();
            }
        }
        return Integer.MAX_VALUE;
    }

    /** Where text written from x0 stops to stay readable: the first break at or after x0, else x1. */
    private static int visibleUntil(TimelineAxis axis, int x0, int x1) {
        for (TimelineAxis.Break b : axis.breaks()) {
            if (b.x0() >= x0 && b.x0() < x1) {
                return b.x0();
            }
        }
        return x1;
    }

    private static boolean dark(Band b) {
        return b.css.equals("leader") || b.css.contains("isr-below") || "#8c8c8c".equals(b.fill);
    }

    /** The lane's events as marks in its lower row, each linked to its table row; labels where they fit. */
    private static void marks(Layers out, Lane lane, TimelineLanes lanes, TimelineAxis axis, int y, long base,
            List<TimedEvent> events, Set<Long> ids) {
        int row = switch (lane.kind) {
            case PARTITION -> y + 52;
            case GROUP -> y + 47;
            case BROKER, TXN -> y + 16;
            default -> y + 13;
        };
        boolean labels = lane.kind == Kind.PARTITION || lane.kind == Kind.GROUP;
        int free = Integer.MIN_VALUE;
        StringBuilder svg = out.over;
        for (Mark m : lane.marks) {
            int x = axis.x(m.index());
            long pos = base + m.index();
            // Links go to the event's mark in the first lane it is drawn in.
            String id = lane.name.equals(lanes.lanesOf(m.index()).get(0)) && ids.add(pos) ? " id=\"e" + pos + "\"" : "";
            TimedEvent e = events.get(m.index());
            svg.append("<a href=\"#r").append(pos).append("\">");
            String title = "<title>" + escape(e.toString()) + "</title>";
            switch (m.shape()) {
                case "fault" -> svg.append("<rect class=\"mark fault\"").append(id).append(" x=\"").append(x - 5)
                        .append("\" y=\"").append(row - 5)
                        .append("\" width=\"10\" height=\"10\">").append(title).append("</rect>");
                case "leader" -> svg.append("<rect class=\"mark election").append(m.css().equals("fault") ? " unclean" : "")
                        .append("\"").append(id).append(" x=\"").append(x - 1).append("\" y=\"").append(y + 5)
                        .append("\" width=\"3\" height=\"40\">").append(title).append("</rect>");
                case "isr" -> svg.append("<rect class=\"mark ").append(m.css()).append("\"").append(id).append(" x=\"")
                        .append(x - 1).append("\" y=\"").append(y + 29).append("\" width=\"2\" height=\"15\">").append(title)
                        .append("</rect>");
                case "hw" -> svg.append("<rect class=\"mark hw\"").append(id).append(" x=\"").append(x - 1).append("\" y=\"")
                        .append(row - 6).append("\" width=\"2\" height=\"12\">").append(title).append("</rect>");
                case "join" -> svg.append("<polygon class=\"mark join\"").append(id).append(" points=\"").append(x - 5)
                        .append(',').append(row + 4).append(' ').append(x + 5).append(',').append(row + 4).append(' ')
                        .append(x).append(',').append(row - 5).append("\">").append(title).append("</polygon>");
                case "leave" -> svg.append("<polygon class=\"mark leave\"").append(id).append(" points=\"").append(x - 5)
                        .append(',').append(row - 4).append(' ').append(x + 5).append(',').append(row - 4).append(' ')
                        .append(x).append(',').append(row + 5).append("\">").append(title).append("</polygon>");
                default -> svg.append("<circle class=\"mark ").append(m.css()).append("\"").append(id).append(" cx=\"")
                        .append(x).append("\" cy=\"").append(row).append("\" r=\"3.5\">").append(title).append("</circle>");
            }
            svg.append("</a>\n");
            if (m.label() == null) {
                continue;
            }
            if (m.shape().equals("leader")) {
                out.text.append("<text class=\"mark-label unclean-label\" x=\"").append(x + 5).append("\" y=\"")
                        .append(y + 6).append("\">").append(escape(m.label())).append("</text>\n");
            } else if (labels && x + 6 >= free) {
                out.text.append("<text class=\"mark-label ").append(m.css()).append("\" x=\"").append(x + 6).append("\" y=\"")
                        .append(row + 4).append("\">").append(escape(m.label())).append("</text>\n");
                free = x + 6 + (int) (m.label().length() * 5.6) + 6;
            }
        }
    }

    /** The faults lane: each fault a bar from applied to healed (to the end while it lasts), instant ones a mark. */
    private static void faults(Layers out, Lane lane, TimelineAxis axis, int y, long base, List<TimedEvent> events,
            Set<Long> ids) {
        for (Span s : lane.spans) {
            int x0 = axis.x(s.from);
            int x1 = s.instant ? x0 : s.to < 0 ? axis.end() : axis.x(s.to);
            int top = y + 4 + s.row * FAULT_ROW;
            long pos = base + s.from;
            String title = "<title>" + escape(events.get(s.from) + (s.to >= 0 ? "\n" + events.get(s.to) : s.instant ? ""
                    : "\n(not healed)")) + "</title>";
            if (!s.instant) {
                out.under.append("<rect class=\"fault-span").append(s.to < 0 ? " open" : "").append("\" x=\"").append(x0)
                        .append("\" y=\"").append(top).append("\" width=\"").append(Math.max(2, x1 - x0))
                        .append("\" height=\"16\">").append(title).append("</rect>\n");
            }
            ids.add(pos);
            out.over.append("<a href=\"#r").append(pos).append("\"><rect class=\"mark fault\" id=\"e").append(pos)
                    .append("\" x=\"").append(x0 - 5).append("\" y=\"").append(top + 3).append("\" width=\"10\" height=\"10\">")
                    .append(title).append("</rect></a>\n");
            if (s.to >= 0) {
                long healed = base + s.to;
                ids.add(healed);
                out.over.append("<a href=\"#r").append(healed).append("\"><polygon class=\"mark heal\" id=\"e").append(healed)
                        .append("\" points=\"").append(x1).append(',').append(top + 2).append(' ').append(x1 + 6).append(',')
                        .append(top + 8).append(' ').append(x1).append(',').append(top + 14).append(' ').append(x1 - 6)
                        .append(',').append(top + 8).append("\"><title>").append(escape(events.get(s.to).toString()))
                        .append("</title></polygon></a>\n");
            }
            out.text.append("<text class=\"fault-label\" x=\"").append(x0 + 8).append("\" y=\"").append(top + 12).append("\">")
                    .append(escape(s.label + (s.to < 0 && !s.instant ? " (not healed)" : ""))).append("</text>\n");
        }
    }

    /** Assigns each fault a row of the faults lane so that no bar or label overlaps another; returns where they end. */
    private static int pack(Lane faults, TimelineAxis axis) {
        List<Integer> ends = new ArrayList<>();
        int right = 0;
        for (Span s : faults.spans) {
            int x0 = axis.x(s.from) - 6;
            int x1 = s.instant ? x0 : s.to < 0 ? axis.end() : axis.x(s.to) + 7;
            String label = s.label + (s.to < 0 && !s.instant ? " (not healed)" : "");
            int extent = Math.max(x1, x0 + 14 + (int) (label.length() * CHAR)) + 6;
            int row = 0;
            while (row < ends.size() && ends.get(row) > x0) {
                row++;
            }
            if (row == ends.size()) {
                ends.add(extent);
            } else {
                ends.set(row, extent);
            }
            s.row = row;
            right = Math.max(right, extent);
        }
        return right;
    }

    /** The chart's three layers, drawn in this order. */
    private record Layers(StringBuilder under, StringBuilder over, StringBuilder text) {
    }

    /** Findings on a lane at one place, drawn as one triangle with their count. */
    private record Flag(int x, String kind, long records, String link, String title) {
    }

    private static Map<String, List<Flag>> flags(List<Finding> findings, TimelineLanes lanes, TimelineAxis axis, long base,
            int size) {
        Map<String, Map<String, List<Finding>>> grouped = new TreeMap<>();
        Map<Finding, Integer> rowOf = new java.util.IdentityHashMap<>();
        Map<String, Integer> rows = new LinkedHashMap<>();
        Map<Finding, Integer> xOf = new java.util.IdentityHashMap<>();
        for (Finding f : findings) {
            rowOf.put(f, rows.merge(f.kind(), 1, Integer::sum) - 1);
            long index = f.at() - base;
            int x = f.at() >= 0 && index >= 0 && index < size ? axis.x((int) index) : axis.xAtTime(f.timeMs());
            xOf.put(f, x);
            lanes.laneFor(f.lane());
            grouped.computeIfAbsent(f.lane(), k -> new LinkedHashMap<>()).computeIfAbsent(x + "/" + f.kind(),
                    k -> new ArrayList<>()).add(f);
        }
        Map<String, List<Flag>> flags = new LinkedHashMap<>();
        grouped.forEach((lane, places) -> places.values().forEach(list -> {
            Finding first = list.get(0);
            long records = list.stream().mapToLong(Finding::records).sum();
            String title = list.stream().map(f -> f.kind() + ": " + f.text()).collect(java.util.stream.Collectors.joining("\n"));
            flags.computeIfAbsent(lane, k -> new ArrayList<>()).add(new Flag(xOf.get(first), first.kind(), records,
                    "f-" + id(first.kind()) + "-" + rowOf.get(first), title));
        }));
        return flags;
    }

    private static void flag(Layers out, Flag f, int laneTop) {
        int top = laneTop + 1;
        String label = f.records() + " " + FINDING_NAMES.getOrDefault(f.kind(), f.kind());
        out.over.append("<a href=\"#").append(f.link()).append("\"><polygon class=\"finding ").append(id(f.kind()))
                .append("\" points=\"").append(f.x() - 7).append(',').append(top).append(' ').append(f.x() + 7).append(',')
                .append(top).append(' ').append(f.x()).append(',').append(top + 13).append("\"><title>").append(escape(f.title()))
                .append("</title></polygon></a>\n");
        out.text.append("<a href=\"#").append(f.link()).append("\"><text class=\"finding-label\" x=\"").append(f.x() + 9)
                .append("\" y=\"").append(top + 11).append("\">").append(escape(label)).append("</text></a>\n");
    }

    // --- small helpers

    static String brokerColour(int broker) {
        return BROKER_COLOURS[Math.floorMod(broker - 1, BROKER_COLOURS.length)];
    }

    static String stateColour(String state) {
        return STATE_COLOURS.getOrDefault(state, "#dadaeb");
    }

    /** A string as an id or class: letters, digits, '-' and '_'. */
    static String id(String text) {
        return text.replaceAll("[^A-Za-z0-9_-]", "_");
    }

    private static String fit(String text, int width, double charWidth) {
        int max = (int) (width / charWidth);
        return text.length() <= max ? text : text.substring(0, Math.max(1, max - 1)) + "\u2026";
    }

    static String escape(String text) {
        StringBuilder out = new StringBuilder(text.length() + 16);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '&' -> out.append("&amp;");
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '"' -> out.append("&quot;");
                default -> {
                    if (c < 0x20 && c != '\n' && c != '\t') {
                        out.append('?'); // not allowed in XML 1.0
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.toString();
    }

    private static final String STYLE = """
            body { font-family: system-ui, -apple-system, 'Segoe UI', Roboto, 'DejaVu Sans', sans-serif; margin: 14px; color: #222; }
            h1 { font-size: 20px; margin: 0 0 4px 0; }
            h2 { font-size: 16px; margin: 22px 0 6px 0; }
            h3 { font-size: 14px; margin: 14px 0 4px 0; }
            p { margin: 3px 0; font-size: 13px; }
            .facts { color: #444; }
            .seed { font-weight: bold; }
            .verdict strong, .verdict strong a { color: #b71c1c; }
            .how { color: #666; font-size: 12px; }
            .chart { display: flex; border: 1px solid #ccc; margin-top: 8px; }
            .names { flex: none; border-right: 1px solid #ccc; background: #fff; }
            .scroll { overflow-x: auto; flex: 1; }
            svg text { font-family: inherit; }
            .row { fill: #fff; } .row.odd { fill: #f7f7f7; }
            .name-row { fill: #fff; stroke: #eee; }
            .name { font-size: 13px; font-weight: 600; fill: #222; }
            .sub, .axis-name { font-size: 10px; fill: #777; }
            .axis-line, .tick { stroke: #888; } .grid { stroke: #e6e6e6; }
            .tick-label { font-size: 10px; fill: #444; }
            .gap { fill: url(#hatch); } .gap-label-bg { fill: #fff; }
            .gap-label { font-size: 11px; font-weight: bold; fill: #555; text-anchor: middle; }
            .band { stroke: #fff; stroke-width: 1; }
            .band.up { fill: #c7e9c0; } .band.down { fill: #f4a6a6; } .band.isolated { fill: #fdd0a2; }
            .band.offline { fill: #f3d1d1; }
            .band.isr { fill: #cfcfcf; } .band.isr-below { fill: #d7301f; }
            .band-label { font-size: 11px; fill: #222; pointer-events: none; }
            .band-label.isr { font-size: 9px; }
            .band-detail { font-size: 10px; fill: #1f3d1f; text-decoration: underline; }
            .band-label.on-dark { fill: #fff; font-weight: 600; }
            .mark { cursor: pointer; }
            .mark.event { fill: #3b6fb6; } .mark.truncated { fill: #b71c1c; }
            .mark.fault { fill: #c62828; stroke: #fff; stroke-width: 1; }
            .mark.heal { fill: #2e7d32; stroke: #fff; stroke-width: 1; }
            .mark.election { fill: #111; } .mark.election.unclean { fill: #c62828; }
            .mark.isr-shrunk { fill: #b71c1c; } .mark.isr-expanded { fill: #2e7d32; }
            .mark.hw { fill: #333; }
            .mark.join { fill: #2e7d32; } .mark.leave { fill: #c62828; }
            .mark-label { font-size: 9.5px; fill: #333; pointer-events: none; }
            .mark-label.truncated, .unclean-label { fill: #b71c1c; font-weight: bold; }
            .mark-label.join { fill: #1b5e20; } .mark-label.leave { fill: #b71c1c; }
            .fault-span { fill: #fde0dd; stroke: #c62828; stroke-width: 1; }
            .fault-span.open { stroke-dasharray: 4 2; }
            .fault-label { font-size: 11px; fill: #8b0000; pointer-events: none; }
            .finding { fill: #ff6f00; stroke: #000; stroke-width: 1; }
            .finding-label { font-size: 12px; font-weight: bold; fill: #b71c1c; paint-order: stroke; stroke: #fff; stroke-width: 3px; }
            :target.mark, .mark:target { stroke: #000; stroke-width: 3; }
            tr:target { background: #fff3a0; outline: 2px solid #e0b000; }
            .legend ul { margin: 0; padding-left: 18px; font-size: 12px; }
            .legend li { margin: 2px 0; }
            .sw { display: inline-block; width: 14px; height: 10px; margin: 0 3px 0 6px; border: 1px solid #999; vertical-align: middle; }
            .offline-sw { background: #f3d1d1; } .fault-sw { background: #fde0dd; border-color: #c62828; }
            .sym { font-weight: bold; margin: 0 2px 0 6px; }
            .sym.fault, .sym.leave { color: #c62828; } .sym.heal, .sym.join { color: #2e7d32; } .sym.lost { color: #ff6f00; }
            table { border-collapse: collapse; font-size: 12px; }
            th, td { border: 1px solid #ddd; padding: 2px 6px; text-align: left; vertical-align: top; }
            th { background: #f0f0f0; position: sticky; top: 0; }
            .events td:nth-child(2) { white-space: nowrap; font-family: monospace; }
            .events { table-layout: fixed; width: 100%; max-width: 1500px; }
            .events .c-n { width: 52px; } .events .c-time { width: 200px; } .events .c-lane { width: 210px; }
            .events .c-type { width: 160px; } .events td { overflow-wrap: anywhere; }
            .chunk { content-visibility: auto; contain-intrinsic-size: auto 3700px; }
            .fault-row { background: #fff0ef; }
            .findings.lost td { background: #fff4e5; }
            .findings td:not(.at):not(.cause) { white-space: nowrap; }
            .filters { margin: 4px 0; font-size: 12px; }
            """;

    /** Filters the event table by lane and kind, and brings a linked mark into view; the page reads without it. */
    private static final String SCRIPT = """
            <script>//<![CDATA[
            (function () {
              var filters = document.getElementById('filters');
              var lane = document.getElementById('lane');
              var kind = document.getElementById('kind');
              var shown = document.getElementById('shown');
              var rows = document.querySelectorAll('#event-table tbody tr');
              filters.hidden = false;
              function apply() {
                var l = lane.value, k = kind.value, n = 0;
                for (var i = 0; i < rows.length; i++) {
                  var r = rows[i];
                  var ok = (!l || r.getAttribute('data-lane').split('|').indexOf(l) >= 0) && (!k || r.getAttribute('data-kind') === k);
                  r.style.display = ok ? '' : 'none';
                  if (ok) { n++; }
                }
                shown.textContent = n + ' of ' + rows.length + ' events';
              }
              lane.addEventListener('change', apply);
              kind.addEventListener('change', apply);
              function reveal() {
                var target = location.hash && document.getElementById(location.hash.substring(1));
                if (target && target.ownerSVGElement) {
                  target.scrollIntoView({block: 'center', inline: 'center'});
                }
              }
              window.addEventListener('hashchange', reveal);
              reveal();
            })();
            //]]></script>
            """;
}
