package dev.samsa.cli.control;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** What a test in another language does with the endpoint: HTTP requests with JSON bodies, and nothing of Samsa's API. */
final class ControlClient {

    /** One answer: the status, the body, and the body parsed as JSON (null for a page). */
    record Reply(int status, String body, Object json, HttpResponse<String> response) {

        @SuppressWarnings("unchecked")
        Map<String, Object> map() {
            return (Map<String, Object>) json;
        }

        /** The value at a dotted path of fields and list indexes: {@code get("brokers.0.state")}. */
        @SuppressWarnings("unchecked")
        Object get(String path) {
            Object at = json;
            for (String part : path.split("\\.")) {
                at = at instanceof List<?> l ? l.get(Integer.parseInt(part)) : ((Map<String, Object>) at).get(part);
            }
            return at;
        }

        long number(String path) {
            return ((Number) get(path)).longValue();
        }

        String error() {
            return (String) map().get("error");
        }

        @Override
        public String toString() {
            return status + " " + body;
        }
    }

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private final String base;

    ControlClient(String base) {
        this.base = base;
    }

    Reply get(String path) {
        return send("GET", path, null);
    }

    Reply post(String path) {
        return send("POST", path, "");
    }

    Reply post(String path, String json) {
        return send("POST", path, json);
    }

    Reply delete(String path) {
        return send("DELETE", path, null);
    }

    Reply send(String method, String path, String body) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(base + path))
                .timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .build();
        try {
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            String type = response.headers().firstValue("Content-Type").orElse("");
            Object json = type.startsWith("application/json") ? Json.parse(response.body()) : null;
            return new Reply(response.statusCode(), response.body(), json, response);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(method + " " + path, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
