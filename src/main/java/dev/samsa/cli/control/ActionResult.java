package dev.samsa.cli.control;

import dev.samsa.KafkaCluster;
import dev.samsa.event.ClusterTimeline;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The answer to an action: what it acted on, and {@code "timeline"}, the timeline's position when the action began
 * (that of the first event it recorded), so that a client can read ({@code GET /timeline?since=N}) or await
 * ({@code "since": N}) what the action caused, even what it caused before it answered.
 */
final class ActionResult {

    private final KafkaCluster cluster;

    ActionResult(KafkaCluster cluster) {
        this.cluster = cluster;
    }

    /** @param keysAndValues key, value, key, value, ... */
    Response of(Call call, Object... keysAndValues) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("ok", true);
        for (int i = 0; i + 1 < keysAndValues.length; i += 2) {
            out.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        out.put("timeline", call.timeline() >= 0 ? call.timeline() : position());
        return Response.json(out);
    }

    long position() {
        ClusterTimeline.Snapshot s = cluster.events().snapshot();
        return s.dropped() + s.events().size();
    }
}
