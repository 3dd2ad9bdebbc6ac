package dev.samsa.cli.control;

import java.util.Map;

/** What the endpoint answers: a status, a content type and a body. */
record Response(int status, String contentType, String body) {

    static final String JSON = "application/json; charset=utf-8";

    static Response json(Object value) {
        return json(200, value);
    }

    static Response json(int status, Object value) {
        return new Response(status, JSON, Json.write(value));
    }

    static Response html(String page) {
        return new Response(200, "text/html; charset=utf-8", page);
    }

    static Response error(int status, String message) {
        return json(status, Map.of("status", status, "error", message));
    }
}
