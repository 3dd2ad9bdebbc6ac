package dev.samsa.cli.control;

import dev.samsa.KafkaCluster;
import dev.samsa.event.ClusterTimeline;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The answer to an action: what it acted on, and {@code "timeline"}, the position the next event will take, so that a
 * client can read ({@code GET /timeline?since=N}) or await ({@code "since": N}) what follows it.
 */
final class ActionResult {

    private final KafkaCluster cluster;

    ActionResult(KafkaCluster cluster) {
        this.cluster = cluster;
    }

    /** @param keysAndValues key, value, key, value, ... */
    Response of(Object... keysAndValues) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("ok", true);
        for (int i = 0; i + 1 < keysAndValues.length; i += 2) {
            out.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        out.put("timeline", position());
        return Response.json(out);
    }

    long position() {
        ClusterTimeline.Snapshot s = cluster.events().snapshot();
        return s.dropped() + s.events().size();
    }
}
