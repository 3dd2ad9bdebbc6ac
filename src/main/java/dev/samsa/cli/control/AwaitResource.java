package dev.samsa.cli.control;

import dev.samsa.ConsumerGroup;
import dev.samsa.GroupState;
import dev.samsa.KafkaCluster;
import dev.samsa.event.ClusterEvent;
import dev.samsa.event.ClusterTimeline;
import dev.samsa.event.TimedEvent;
import dev.samsa.event.Trigger;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * {@code POST /await}: answers once a condition holds, or 408 when it does not within {@code timeoutMs} of wall time
 * (default 10 s). Two kinds:
 * <ul>
 *   <li>a group's state: {@code {"group": "g", "state": "Stable", "members": 2}} ({@code members} optional), checked
 *       now and again after every event, answered with the group;</li>
 *   <li>an event ({@link Condition}): {@code {"event": "LeaderChanged", "topic": "orders", "partition": 0}}, answered
 *       with the first matching event at or after {@code since} (a timeline position, as every action answers;
 *       default 0, every kept event, as the Java API's {@code events().await} looks at them all).</li>
 * </ul>
 */
final class AwaitResource {

    static final long DEFAULT_TIMEOUT_MS = 10_000;
    static final long MAX_TIMEOUT_MS = 600_000;

    private final KafkaCluster cluster;

    AwaitResource(KafkaCluster cluster) {
        this.cluster = cluster;
    }

    void register(Router router) {
        router.add("POST", "/await", this::await);
    }

    private Response await(Call call) {
        Body body = call.json();
        long timeoutMs = body.number("timeoutMs", DEFAULT_TIMEOUT_MS);
        if (timeoutMs < 0 || timeoutMs > MAX_TIMEOUT_MS) {
            throw ControlException.badRequest("Field 'timeoutMs' must be 0.." + MAX_TIMEOUT_MS + ", got " + timeoutMs);
        }
        if (body.has("event")) {
            return awaitEvent(body, timeoutMs);
        }
        if (body.has("group")) {
            return awaitGroup(body.allowOnly("group", "state", "members", "timeoutMs"), timeoutMs);
        }
        throw ControlException.badRequest("Await either a group ({\"group\": ..., \"state\": ...}) or an event "
                + "({\"event\": ..., ...})");
    }

    private Response awaitGroup(Body body, long timeoutMs) {
        String id = body.string("group");
        GroupState state = Names.groupState(body.string("state"));
        Integer members = body.has("members") ? body.integer("members") : null;
        Supplier<ConsumerGroup> holds = () -> {
            ConsumerGroup g = cluster.group(id);
            return g.state() == state && (members == null || g.members().size() == members) ? g : null;
        };
        ConsumerGroup g = until(e -> true, holds, timeoutMs);
        if (g == null) {
            ConsumerGroup now = cluster.group(id);
            throw new ControlException(408, "Group '" + id + "' was not " + state
                    + (members == null ? "" : " with " + members + " members") + " within " + timeoutMs + " ms; it is "
                    + now.state() + " with " + now.members().size() + " members, generation " + now.generation());
        }
        return Response.json(Map.of("group", Views.group(g, cluster.groupCoordinator(id))));
    }

    private Response awaitEvent(Body body, long timeoutMs) {
        long since = body.number("since", 0);
        Condition condition = Condition.parse(body, "since", "timeoutMs");
        Supplier<Map<String, Object>> holds = () -> {
            ClusterTimeline.Snapshot s = cluster.events().snapshot();
            List<TimedEvent> events = s.events();
            for (int i = (int) Math.max(0, since - s.dropped()); i < events.size(); i++) {
                if (condition.test().test(events.get(i).event())) {
                    return Views.event(s.dropped() + i, events.get(i));
                }
            }
            return null;
        };
        Map<String, Object> event = until(condition.test(), holds, timeoutMs);
        if (event == null) {
            throw new ControlException(408, "No event " + Json.write(condition.spec()) + " at or after position " + since
                    + " within " + timeoutMs + " ms; GET /timeline shows what happened");
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("event", event);
        return Response.json(out);
    }

    /**
     * What {@code holds} gives once it gives something, checked now and after each event {@code worthChecking} that
     * the cluster records (on the cluster loop, before it takes the next step), or null after {@code timeoutMs}. Armed
     * before the first check, so an event between the two is not missed.
     */
    private <T> T until(Predicate<ClusterEvent> worthChecking, Supplier<T> holds, long timeoutMs) {
        CompletableFuture<T> done = new CompletableFuture<>();
        Trigger trigger = cluster.events().onEvery(e -> !done.isDone() && worthChecking.test(e), () -> {
            try {
                T value = holds.get();
                if (value != null) {
                    done.complete(value);
                }
            } catch (RuntimeException e) {
                done.completeExceptionally(e);
            }
        });
        try {
            T now = holds.get();
            if (now != null) {
                return now;
            }
            return done.get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ControlException(503, "Interrupted while awaiting: the endpoint is closing");
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException re ? re : new IllegalStateException(e.getCause());
        } finally {
            trigger.cancel();
        }
    }
}
