package dev.samsa.cli.control;

import dev.samsa.KafkaCluster;
import dev.samsa.time.ClusterClock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/** The cluster clock: read it; advance a manual one, answering once every timer that fell due has run. */
final class ClockResource {

    private final KafkaCluster cluster;
    private final ActionResult result;

    ClockResource(KafkaCluster cluster, ActionResult result) {
        this.cluster = cluster;
        this.result = result;
    }

    void register(Router router) {
        router.add("GET", "/clock", call -> Response.json(clock(cluster)))
                .add("POST", "/clock/advance", this::advance);
    }

    static Map<String, Object> clock(KafkaCluster cluster) {
        ClusterClock clock = cluster.clock();
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("manual", clock.isManual());
        long ms = clock.milliseconds();
        out.put("timeMs", ms);
        out.put("time", java.time.Instant.ofEpochMilli(ms));
        return out;
    }

    private Response advance(Call call) {
        Body body = call.json().allowOnly("ms");
        long ms = body.number("ms");
        if (ms < 0) {
            throw ControlException.badRequest("Field 'ms' must be 0 or more (the clock never goes back), got " + ms);
        }
        if (!cluster.clock().isManual()) {
            throw ControlException.conflict("The clock is not manual: it follows the wall clock; start the launcher with "
                    + "--clock manual to advance it");
        }
        cluster.clock().advance(Duration.ofMillis(ms));
        return result.of(call, "clock", clock(cluster));
    }
}
