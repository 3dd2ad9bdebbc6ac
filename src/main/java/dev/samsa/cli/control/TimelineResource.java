package dev.samsa.cli.control;

import dev.samsa.KafkaCluster;
import dev.samsa.event.ClusterTimeline;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The timeline as JSON events and as the HTML page, and the history check. */
final class TimelineResource {

    private final KafkaCluster cluster;

    TimelineResource(KafkaCluster cluster) {
        this.cluster = cluster;
    }

    void register(Router router) {
        router.add("GET", "/timeline", this::timeline)
                .add("GET", "/timeline.html", call -> Response.html(html()))
                .add("GET", "/history", call -> Response.json(Views.history(cluster.history(), cluster)));
    }

    /**
     * {@code ?since=N}: only the events at position N and later (a position counts every event ever recorded, dropped
     * ones included), so that a client polling with the last answer's {@code next} sees each event once.
     */
    private Response timeline(Call call) {
        long since = call.longQuery("since", 0);
        if (since < 0) {
            throw ControlException.badRequest("Query parameter 'since' must be 0 or more, got " + since);
        }
        ClusterTimeline.Snapshot s = cluster.events().snapshot();
        List<Object> events = new ArrayList<>();
        for (int i = (int) Math.max(0, since - s.dropped()); i < s.events().size(); i++) {
            events.add(Views.event(s.dropped() + i, s.events().get(i)));
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("dropped", s.dropped());
        out.put("next", s.dropped() + s.events().size());
        out.put("events", events);
        return Response.json(out);
    }

    /** The page {@code events().writeHtml(path)} draws, written to a file of the cluster's and read back. */
    private String html() {
        try {
            Path file = Files.createTempFile(cluster.dataDirectory(), "timeline-", ".html");
            try {
                cluster.events().writeHtml(file);
                return Files.readString(file);
            } finally {
                Files.deleteIfExists(file);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot draw the timeline page in " + cluster.dataDirectory(), e);
        }
    }
}
