package dev.samsa.cli.control;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A request's JSON object, read field by field: each getter names the field and what it expected when the value is
 * missing or of the wrong type, and {@link #allowOnly} refuses a field the resource does not know (a typo must not
 * pass for a default).
 */
final class Body {

    private final Map<String, Object> fields;

    private Body(Map<String, Object> fields) {
        this.fields = fields;
    }

    /** An empty body is an empty object. */
    @SuppressWarnings("unchecked")
    static Body parse(String text) {
        if (text == null || text.isBlank()) {
            return new Body(Map.of());
        }
        Object value;
        try {
            value = Json.parse(text);
        } catch (IllegalArgumentException e) {
            throw ControlException.badRequest(e.getMessage());
        }
        if (!(value instanceof Map)) {
            throw ControlException.badRequest("The body must be a JSON object, got " + Json.write(value));
        }
        return new Body((Map<String, Object>) value);
    }

    static Body of(Map<String, Object> fields) {
        return new Body(fields);
    }

    Body allowOnly(String... names) {
        Set<String> allowed = Set.of(names);
        for (String key : fields.keySet()) {
            if (!allowed.contains(key)) {
                throw ControlException.badRequest("Unknown field '" + key + "'; this request takes "
                        + (names.length == 0 ? "no fields" : String.join(", ", List.of(names))));
            }
        }
        return this;
    }

    boolean has(String name) {
        return fields.get(name) != null;
    }

    Object raw(String name) {
        return fields.get(name);
    }

    Map<String, Object> fields() {
        return fields;
    }

    String string(String name) {
        Object v = required(name);
        if (!(v instanceof String s)) {
            throw wrongType(name, "a string", v);
        }
        return s;
    }

    String string(String name, String fallback) {
        return has(name) ? string(name) : fallback;
    }

    long number(String name) {
        Object v = required(name);
        if (v instanceof Long l) {
            return l;
        }
        if (v instanceof Double d && d == Math.rint(d) && !d.isInfinite()) {
            return d.longValue();
        }
        throw wrongType(name, "a whole number", v);
    }

    long number(String name, long fallback) {
        return has(name) ? number(name) : fallback;
    }

    int integer(String name) {
        long n = number(name);
        if (n < Integer.MIN_VALUE || n > Integer.MAX_VALUE) {
            throw wrongType(name, "a 32-bit whole number", n);
        }
        return (int) n;
    }

    int integer(String name, int fallback) {
        return has(name) ? integer(name) : fallback;
    }

    boolean bool(String name, boolean fallback) {
        Object v = fields.get(name);
        if (v == null) {
            return fallback;
        }
        if (!(v instanceof Boolean b)) {
            throw wrongType(name, "true or false", v);
        }
        return b;
    }

    @SuppressWarnings("unchecked")
    Body object(String name) {
        Object v = required(name);
        if (!(v instanceof Map)) {
            throw wrongType(name, "an object", v);
        }
        return new Body((Map<String, Object>) v);
    }

    private Object required(String name) {
        Object v = fields.get(name);
        if (v == null) {
            throw ControlException.badRequest("Missing field '" + name + "'");
        }
        return v;
    }

    private static ControlException wrongType(String name, String expected, Object got) {
        return ControlException.badRequest("Field '" + name + "' must be " + expected + ", got " + Json.write(got));
    }
}
