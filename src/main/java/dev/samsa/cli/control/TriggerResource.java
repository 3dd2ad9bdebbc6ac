package dev.samsa.cli.control;

import dev.samsa.KafkaCluster;
import dev.samsa.event.Trigger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Event triggers, the Java API's {@code events().on(when, action)}: {@code POST /triggers} with
 * {@code {"when": CONDITION, "then": ACTION or [ACTION, ...], "every": false}}, where the condition is a
 * {@link Condition} and an action is a fault request of this endpoint, {@code {"path": "/brokers/2/crash"}} or
 * {@code {"path": "/brokers/2/latency", "body": {"ms": 200}}}, run on the cluster loop right after the step that recorded
 * the event, before any other request. {@code "every": true} fires on every matching event until deleted.
 */
final class TriggerResource {

    /** The paths an action may name: faults, which run whole on the loop; never the clock or an await. */
    private static final List<String> ACTION_PREFIXES = List.of("/brokers/", "/partitions/", "/clients/", "/faults/");

    private record Armed(int id, Map<String, Object> when, List<Map<String, Object>> then, boolean every, Trigger trigger) {
        Map<String, Object> view() {
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("id", id);
            out.put("when", when);
            out.put("then", then);
            out.put("every", every);
            out.put("fired", trigger.fired());
            return out;
        }
    }

    private final KafkaCluster cluster;
    private final Router router;
    private final ActionResult result;
    private final Map<Integer, Armed> armed = new LinkedHashMap<>();
    private int nextId = 1;

    TriggerResource(KafkaCluster cluster, Router router, ActionResult result) {
        this.cluster = cluster;
        this.router = router;
        this.result = result;
    }

    void register(Router r) {
        r.add("GET", "/triggers", call -> Response.json(Map.of("triggers", views())))
                .add("POST", "/triggers", this::arm)
                .add("DELETE", "/triggers", call -> cancel(call, null))
                .add("DELETE", "/triggers/{id}", call -> cancel(call, call.intParam("id")));
    }

    private Response arm(Call call) {
        Body body = call.json().allowOnly("when", "then", "every");
        Condition when = Condition.parse(body.object("when"));
        List<Map<String, Object>> then = actions(body.raw("then"));
        boolean every = body.bool("every", false);
        Runnable action = () -> then.forEach(a -> router.dispatch("POST", (String) a.get("path"), Map.of(),
                a.get("body") == null ? "" : Json.write(a.get("body")), -1));
        Armed entry;
        synchronized (this) {
            Trigger trigger = every ? cluster.events().onEvery(when.test(), action) : cluster.events().on(when.test(), action);
            entry = new Armed(nextId++, when.spec(), then, every, trigger);
            armed.put(entry.id(), entry);
        }
        return result.of(call, "trigger", entry.view());
    }

    @SuppressWarnings("unchecked")
    private List<Map<String, Object>> actions(Object then) {
        if (then == null) {
            throw ControlException.badRequest("Missing field 'then': an action such as {\"path\": \"/brokers/1/crash\"}");
        }
        List<Object> list = then instanceof List<?> l ? (List<Object>) l : List.of(then);
        if (list.isEmpty()) {
            throw ControlException.badRequest("Field 'then' names no action");
        }
        List<Map<String, Object>> actions = new ArrayList<>();
        for (Object o : list) {
            if (!(o instanceof Map)) {
                throw ControlException.badRequest("An action must be an object such as {\"path\": \"/brokers/1/crash\"}, got "
                        + Json.write(o));
            }
            Body a = Body.of((Map<String, Object>) o).allowOnly("path", "body");
            String path = a.string("path");
            if (ACTION_PREFIXES.stream().noneMatch(path::startsWith) || !router.routes("POST", path)) {
                throw ControlException.badRequest("An action's path must be a POST fault request of this endpoint (under "
                        + String.join(", ", ACTION_PREFIXES) + "), got '" + path + "'");
            }
            if (a.has("body") && !(a.raw("body") instanceof Map)) {
                throw ControlException.badRequest("An action's 'body' must be an object, got " + Json.write(a.raw("body")));
            }
            actions.add((Map<String, Object>) o);
        }
        return actions;
    }

    private synchronized List<Object> views() {
        return armed.values().stream().map(a -> (Object) a.view()).toList();
    }

    private Response cancel(Call call, Integer id) {
        List<Armed> cancelled = new ArrayList<>();
        synchronized (this) {
            if (id == null) {
                cancelled.addAll(armed.values());
                armed.clear();
            } else {
                Armed a = armed.remove(id);
                if (a == null) {
                    throw ControlException.notFound("Unknown trigger " + id + "; GET /triggers lists them");
                }
                cancelled.add(a);
            }
        }
        cancelled.forEach(a -> a.trigger().cancel());
        return result.of(call, "cancelled", cancelled.size());
    }
}
