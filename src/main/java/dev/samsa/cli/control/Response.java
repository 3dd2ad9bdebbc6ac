package dev.samsa.cli.control;

import java.util.Map;

/** What the endpoint answers: a status, a content type, a body, and for a 405 the methods the resource takes. */
record Response(int status, String contentType, String body, String allow) {

    static final String JSON = "application/json; charset=utf-8";

    static Response json(Object value) {
        return json(200, value);
    }

    static Response json(int status, Object value) {
        return new Response(status, JSON, Json.write(value), null);
    }

    static Response html(String page) {
        return new Response(200, "text/html; charset=utf-8", page, null);
    }

    static Response error(int status, String message) {
        return json(status, Map.of("status", status, "error", message));
    }

    /** A 405 with the Allow header's value. */
    static Response methodNotAllowed(String message, String allow) {
        return new Response(405, JSON, Json.write(Map.of("status", 405, "error", message)), allow);
    }
}
