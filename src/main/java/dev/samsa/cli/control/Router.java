package dev.samsa.cli.control;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The endpoint's routes: a method and a path pattern whose {@code {name}} parts match one path segment each. A path
 * that some route matches with another method is 405 (with the methods it takes); a path no route matches is 404.
 */
final class Router {

    @FunctionalInterface
    interface Route {
        Response handle(Call call);
    }

    private record Entry(String method, String[] pattern, Route route) {
    }

    private final List<Entry> entries = new ArrayList<>();

    Router add(String method, String pattern, Route route) {
        entries.add(new Entry(method, segments(pattern), route));
        return this;
    }

    /** The route for {@code method} and {@code path} with the path's named parts, or a 404 or 405. */
    Response dispatch(String method, String path, Map<String, String> query, String body, long timeline) {
        String[] segments = segments(path);
        TreeSet<String> allowed = new TreeSet<>();
        for (Entry e : entries) {
            Map<String, String> params = match(e.pattern, segments);
            if (params == null) {
                continue;
            }
            if (e.method.equals(method)) {
                return e.route.handle(new Call(method, params, query, body, timeline));
            }
            allowed.add(e.method);
        }
        if (!allowed.isEmpty()) {
            throw new MethodNotAllowed(method + " " + path + " is not supported; use " + String.join(" or ", allowed),
                    String.join(", ", allowed));
        }
        throw ControlException.notFound("No resource " + path + "; GET / lists the resources");
    }

    /** Whether some route takes {@code method} on {@code path}. */
    boolean routes(String method, String path) {
        String[] segments = segments(path);
        return entries.stream().anyMatch(e -> e.method.equals(method) && match(e.pattern, segments) != null);
    }

    /** Every route, as "METHOD /pattern", in registration order. */
    List<String> describe() {
        return entries.stream().map(e -> e.method + " /" + String.join("/", e.pattern)).toList();
    }

    private static Map<String, String> match(String[] pattern, String[] segments) {
        if (pattern.length != segments.length) {
            return null;
        }
        Map<String, String> params = new LinkedHashMap<>();
        for (int i = 0; i < pattern.length; i++) {
            String p = pattern[i];
            if (p.startsWith("{") && p.endsWith("}")) {
                params.put(p.substring(1, p.length() - 1), segments[i]);
            } else if (!p.equals(segments[i])) {
                return null;
            }
        }
        return params;
    }

    private static String[] segments(String path) {
        String trimmed = path.startsWith("/") ? path.substring(1) : path;
        if (trimmed.endsWith("/")) {
            trimmed = trimmed.substring(0, trimmed.length() - 1);
        }
        if (trimmed.isEmpty()) {
            return new String[0];
        }
        String[] parts = trimmed.split("/", -1);
        for (int i = 0; i < parts.length; i++) {
            parts[i] = java.net.URLDecoder.decode(parts[i].replace("+", "%2B"), java.nio.charset.StandardCharsets.UTF_8);
        }
        return parts;
    }

    /** A 405, with the Allow header's value. */
    static final class MethodNotAllowed extends ControlException {
        private final String allow;

        MethodNotAllowed(String message, String allow) {
            super(405, message);
            this.allow = allow;
        }

        String allow() {
            return allow;
        }
    }
}
