package dev.samsa.cli.control;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One request as a route sees it: the path's named parts, the query and the body, and the timeline's position when the
 * request came in (the position of the first event an action records; -1 for a trigger's action).
 */
record Call(String method, Map<String, String> params, Map<String, String> query, String body, long timeline) {

    String param(String name) {
        return params.get(name);
    }

    /** A path part that must be a whole number, such as a partition or broker id. */
    int intParam(String name) {
        String value = params.get(name);
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw ControlException.badRequest("'" + value + "' in the path must be a whole number (" + name + ")");
        }
    }

    Body json() {
        return Body.parse(body);
    }

    /** A query parameter that must be a whole number, or {@code fallback} when absent. */
    long longQuery(String name, long fallback) {
        String value = query.get(name);
        if (value == null) {
            return fallback;
        }
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw ControlException.badRequest("Query parameter '" + name + "' must be a whole number, got '" + value + "'");
        }
    }

    static Map<String, String> parseQuery(String raw) {
        Map<String, String> query = new LinkedHashMap<>();
        if (raw == null || raw.isEmpty()) {
            return query;
        }
        for (String pair : raw.split("&")) {
            int eq = pair.indexOf('=');
            String key = eq < 0 ? pair : pair.substring(0, eq);
            String value = eq < 0 ? "" : pair.substring(eq + 1);
            query.put(URLDecoder.decode(key, StandardCharsets.UTF_8), URLDecoder.decode(value, StandardCharsets.UTF_8));
        }
        return query;
    }
}
