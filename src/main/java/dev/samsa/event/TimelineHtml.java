package dev.samsa.event;

import java.lang.reflect.RecordComponent;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The timeline as one self-contained HTML page (inline SVG, no script, nothing fetched), well-formed XML so a tool can
 * parse it: a lane per broker (up, stopped, isolated), per partition and per consumer group (its state), each event a
 * mark in the lanes it concerns (a fault as a red square), in order left to right; hovering a mark shows its line of
 * the text timeline.
 */
final class TimelineHtml {

    /** Beyond this many events only the latest are drawn: a page a browser opens at once. */
    static final int MAX_EVENTS = 5_000;

    private static final int STEP = 14;
    private static final int LANE = 28;
    private static final int LABEL = 190;
    private static final int TOP = 40;

    /** By record name, or printed type where it differs (UncleanLeaderElected). */
    private static final Set<String> FAULTS = Set.of("BrokerStopped", "BrokerIsolated", "ReplicationPaused",
            "FaultInjected", "UncleanLeaderElected", "Truncated", "BrokerLatency", "ClientConnectionsDropped",
            "SaslSessionsExpired", "CertificateRotated", "AuthenticationFailed", "AuthorizationDenied",
            "RequestsIntercepted", "FailuresScheduled", "TxnMarkersHeld", "TxnCoordinatorFaultArmed");

    private TimelineHtml() {
    }

    static String render(ClusterTimeline.Snapshot snapshot, List<Finding> findings) {
        List<TimedEvent> events = snapshot.events();
        long skipped = snapshot.dropped();
        if (events.size() > MAX_EVENTS) {
            skipped += events.size() - MAX_EVENTS;
            events = events.subList(events.size() - MAX_EVENTS, events.size());
        }
        Map<String, List<Integer>> lanes = lanes(events);
        Map<String, Map<Integer, List<Finding>>> flags = flags(events, findings);
        flags.keySet().forEach(lane -> lanes.putIfAbsent(lane, List.of()));
        int width = LABEL + STEP * (events.size() + 2);
        int height = TOP + LANE * lanes.size() + 20;
        StringBuilder svg = new StringBuilder();
        int row = 0;
        for (Map.Entry<String, List<Integer>> lane : lanes.entrySet()) {
            int y = TOP + row++ * LANE;
            svg.append("<g class=\"lane\" data-lane=\"").append(escape(lane.getKey())).append("\">\n");
            svg.append("<rect class=\"row\" x=\"0\" y=\"").append(y).append("\" width=\"").append(width)
                    .append("\" height=\"").append(LANE).append("\"/>\n");
            svg.append("<text class=\"name\" x=\"6\" y=\"").append(y + 18).append("\">").append(escape(lane.getKey()))
                    .append("</text>\n");
            states(svg, lane.getKey(), lane.getValue(), events, y, width);
            for (int i : lane.getValue()) {
                mark(svg, events.get(i), LABEL + STEP * (i + 1), y + LANE / 2);
            }
            flags.getOrDefault(lane.getKey(), Map.of()).forEach((i, found) -> flag(svg, found, LABEL + STEP * (i + 1), y));
            svg.append("</g>\n");
        }
        String from = events.isEmpty() ? "" : Instant.ofEpochMilli(events.get(0).timeMs()).toString();
        String to = events.isEmpty() ? "" : Instant.ofEpochMilli(events.get(events.size() - 1).timeMs()).toString();
        return "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\">\n<head>\n<meta charset=\"utf-8\"/>\n"
                + "<title>Samsa cluster timeline</title>\n<style>\n"
                + "body { font-family: sans-serif; margin: 12px; }\n"
                + ".row { fill: #fafafa; stroke: #ddd; }\n.name { font-size: 12px; fill: #222; }\n"
                + ".event { fill: #3b6fb6; }\n.fault { fill: #d62728; }\n"
                + ".up { fill: #c7e9c0; }\n.down { fill: #f4a6a6; }\n.isolated { fill: #fdd0a2; }\n"
                + ".state { fill: #dadaeb; }\n.state-label { font-size: 9px; fill: #555; }\n"
                + ".lost, .duplicate, .out-of-order { stroke: #000; stroke-width: 1; }\n"
                + ".lost { fill: #ff7f0e; }\n.duplicate { fill: #9467bd; }\n.out-of-order { fill: #8c564b; }\n"
                + "</style>\n</head>\n<body>\n<h1>Samsa cluster timeline</h1>\n<p>" + events.size() + " events from "
                + from + " to " + to + (skipped > 0 ? " (" + skipped + " earlier events not drawn)" : "")
                + "; left to right in the order they happened; hover a mark for its event, red marks are faults, triangles are"
                + " the history check's findings (orange: acknowledged records lost, purple: written twice).</p>\n"
                + "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + width + "\" height=\"" + height + "\">\n"
                + svg + "</svg>\n</body>\n</html>\n";
    }

    /** Lane name to the indexes of its events; brokers first, then partitions, then groups, then the rest. */
    private static Map<String, List<Integer>> lanes(List<TimedEvent> events) {
        Map<String, List<Integer>> brokers = new TreeMap<>();
        Map<String, List<Integer>> partitions = new TreeMap<>();
        Map<String, List<Integer>> groups = new TreeMap<>();
        List<Integer> cluster = new ArrayList<>();
        for (int i = 0; i < events.size(); i++) {
            Map<String, Object> fields = fields(events.get(i).event());
            boolean placed = false;
            if (fields.get("groupId") instanceof String group) {
                groups.computeIfAbsent("group " + group, k -> new ArrayList<>()).add(i);
                placed = true;
            } else if (fields.get("topic") instanceof String topic && fields.get("partition") instanceof Integer p && p >= 0) {
                partitions.computeIfAbsent(topic + "-" + p, k -> new ArrayList<>()).add(i);
                placed = true;
            }
            if (fields.get("brokerId") instanceof Integer broker && broker > 0) {
                brokers.computeIfAbsent(String.format("broker %3d", broker), k -> new ArrayList<>()).add(i);
                placed = true;
            }
            if (!placed) {
                cluster.add(i);
            }
        }
        Map<String, List<Integer>> lanes = new LinkedHashMap<>();
        brokers.forEach((k, v) -> lanes.put(k.replaceAll(" +", " "), v));
        lanes.putAll(partitions);
        lanes.putAll(groups);
        if (!cluster.isEmpty()) {
            lanes.put("cluster", cluster);
        }
        return lanes;
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

    /** The background of a broker lane (up, stopped, isolated) or a group lane (its state), as spans. */
    private static void states(StringBuilder svg, String lane, List<Integer> indexes, List<TimedEvent> events, int y,
            int width) {
        String current = lane.startsWith("broker") ? "up" : null;
        int from = 0;
        for (int i : indexes) {
            ClusterEvent e = events.get(i).event();
            String next = current;
            if (e instanceof BrokerStopped s) {
                next = "down:" + s.how();
            } else if (e instanceof BrokerStarted || e instanceof IsolationHealed) {
                next = "up";
            } else if (e instanceof BrokerIsolated) {
                next = "isolated";
            } else if (e instanceof GroupStateChanged g) {
                next = g.state();
            }
            if (!java.util.Objects.equals(next, current)) {
                span(svg, current, from, i, y);
                current = next;
                from = i;
            }
        }
        span(svg, current, from, events.size() + 1, y);
    }

    private static void span(StringBuilder svg, String state, int from, int to, int y) {
        if (state == null || to <= from) {
            return;
        }
        String css = state.equals("up") ? "up" : state.startsWith("down") ? "down" : state.equals("isolated") ? "isolated" : "state";
        int x = LABEL + STEP * from + STEP / 2;
        int w = STEP * (to - from);
        svg.append("<rect class=\"").append(css).append("\" x=\"").append(x).append("\" y=\"").append(y + 3)
                .append("\" width=\"").append(w).append("\" height=\"").append(LANE - 6).append("\"><title>")
                .append(escape(state)).append("</title></rect>\n");
        if (w < 80) {
            return; // too narrow for its name to be read: the hover text has it
        }
        svg.append("<text class=\"state-label\" x=\"").append(x + 2).append("\" y=\"").append(y + LANE - 5).append("\">")
                .append(escape(state)).append("</text>\n");
    }

    /**
     * Lane to event index to the findings drawn there: at the event it names, else the first kept event at or after
     * its time, else after the last one.
     */
    private static Map<String, Map<Integer, List<Finding>>> flags(List<TimedEvent> events, List<Finding> findings) {
        Map<String, Map<Integer, List<Finding>>> flags = new TreeMap<>();
        for (Finding f : findings) {
            int at = events.size();
            for (int i = 0; i < events.size(); i++) {
                if (f.at() == null ? events.get(i).timeMs() >= f.timeMs() : events.get(i).toString().equals(f.at())) {
                    at = i;
                    break;
                }
            }
            flags.computeIfAbsent(f.lane(), k -> new TreeMap<>()).computeIfAbsent(at, k -> new ArrayList<>()).add(f);
        }
        return flags;
    }

    /** A triangle above the lane's marks; its hover text lists every finding at that place. */
    private static void flag(StringBuilder svg, List<Finding> found, int x, int laneTop) {
        int top = laneTop + 2;
        String text = found.stream().map(f -> f.kind() + ": " + f.text()).collect(java.util.stream.Collectors.joining("\n"));
        svg.append("<polygon class=\"").append(escape(found.get(0).kind())).append("\" points=\"").append(x - 6).append(',')
                .append(top).append(' ').append(x + 6).append(',').append(top).append(' ').append(x).append(',')
                .append(top + 10).append("\"><title>").append(escape(text)).append("</title></polygon>\n");
    }

    private static void mark(StringBuilder svg, TimedEvent e, int x, int y) {
        String title = "<title>" + escape(e.toString()) + "</title>";
        if (FAULTS.contains(e.type()) || FAULTS.contains(e.event().getClass().getSimpleName())) {
            svg.append("<rect class=\"fault\" x=\"").append(x - 5).append("\" y=\"").append(y - 5)
                    .append("\" width=\"10\" height=\"10\">").append(title).append("</rect>\n");
        } else {
            svg.append("<circle class=\"event\" cx=\"").append(x).append("\" cy=\"").append(y).append("\" r=\"4\">")
                    .append(title).append("</circle>\n");
        }
    }

    private static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
