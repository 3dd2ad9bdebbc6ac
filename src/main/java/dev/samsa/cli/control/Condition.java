package dev.samsa.cli.control;

import dev.samsa.When;
import dev.samsa.event.ClusterEvent;
import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * An event condition, for triggers and awaits: {@code {"event": NAME, ...}}, where NAME is one of {@link When}'s
 * conditions with its arguments as fields:
 * <ul>
 *   <li>{@code "groupEntered"}: {@code group}, {@code state} (as Kafka prints it: "CompletingRebalance")</li>
 *   <li>{@code "leaderChanged"}, {@code "isrShrunk"}: {@code topic}, {@code partition}</li>
 *   <li>{@code "highWatermarkReached"}: {@code topic}, {@code partition}, {@code offset}</li>
 *   <li>{@code "acknowledged"}: {@code topic}, {@code partition}, {@code records}</li>
 * </ul>
 * or the name of an event record of the timeline ({@code "LeaderChanged"}, {@code "BrokerStopped"}, ...) whose other
 * fields, if any, must equal the event's fields of the same name: {@code {"event": "BrokerStopped", "brokerId": 2}}.
 */
record Condition(Map<String, Object> spec, Predicate<ClusterEvent> test) {

    private static final Map<String, Class<?>> KINDS = Arrays.stream(ClusterEvent.class.getPermittedSubclasses())
            .collect(Collectors.toMap(Class::getSimpleName, c -> c, (a, b) -> a, java.util.TreeMap::new));

    /** @param body the condition's fields; those in {@code ignore} belong to the caller (a timeout, say) */
    static Condition parse(Body body, String... ignore) {
        Map<String, Object> fields = new LinkedHashMap<>(body.fields());
        for (String i : ignore) {
            fields.remove(i);
        }
        Body b = Body.of(fields);
        String event = b.string("event");
        Predicate<ClusterEvent> test = switch (event) {
            case "groupEntered" -> {
                b.allowOnly("event", "group", "state");
                yield When.groupEntered(b.string("group"), Names.groupState(b.string("state")));
            }
            case "leaderChanged" -> {
                b.allowOnly("event", "topic", "partition");
                yield When.leaderChanged(b.string("topic"), b.integer("partition"));
            }
            case "isrShrunk" -> {
                b.allowOnly("event", "topic", "partition");
                yield When.isrShrunk(b.string("topic"), b.integer("partition"));
            }
            case "highWatermarkReached" -> {
                b.allowOnly("event", "topic", "partition", "offset");
                yield When.highWatermarkReached(b.string("topic"), b.integer("partition"), b.number("offset"));
            }
            case "acknowledged" -> {
                b.allowOnly("event", "topic", "partition", "records");
                yield When.acknowledged(b.string("topic"), b.integer("partition"), b.number("records"));
            }
            default -> ofKind(event, fields);
        };
        return new Condition(fields, test);
    }

    private static Predicate<ClusterEvent> ofKind(String name, Map<String, Object> fields) {
        Class<?> kind = KINDS.get(name);
        if (kind == null) {
            throw ControlException.badRequest("Unknown event '" + name + "'; one of groupEntered, leaderChanged, isrShrunk, "
                    + "highWatermarkReached, acknowledged, or an event of the timeline: " + String.join(", ", KINDS.keySet()));
        }
        Map<String, Object> wanted = new LinkedHashMap<>(fields);
        wanted.remove("event");
        java.util.Set<String> components = Arrays.stream(kind.getRecordComponents()).map(RecordComponent::getName)
                .collect(Collectors.toCollection(java.util.LinkedHashSet::new));
        for (String field : wanted.keySet()) {
            if (!components.contains(field)) {
                throw ControlException.badRequest("Event " + name + " has no field '" + field + "'; its fields are "
                        + String.join(", ", components));
            }
        }
        return e -> {
            if (!kind.isInstance(e)) {
                return false;
            }
            Map<String, Object> actual = Json.fields((Record) e);
            for (Map.Entry<String, Object> w : wanted.entrySet()) {
                // Compared as JSON values, so that 2 matches an int, a long or a short field alike.
                if (!Objects.equals(Json.parse(Json.write(actual.get(w.getKey()))), w.getValue())) {
                    return false;
                }
            }
            return true;
        };
    }
}
