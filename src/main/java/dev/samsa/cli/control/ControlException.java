package dev.samsa.cli.control;

/**
 * A request the endpoint refuses, with the HTTP status and a sentence naming the problem: what the client reads in
 * {@code {"error": ..., "status": ...}}.
 */
class ControlException extends RuntimeException {

    private final int status;

    ControlException(int status, String message) {
        super(message, null, false, false);
        this.status = status;
    }

    int status() {
        return status;
    }

    static ControlException badRequest(String message) {
        return new ControlException(400, message);
    }

    static ControlException notFound(String message) {
        return new ControlException(404, message);
    }

    static ControlException conflict(String message) {
        return new ControlException(409, message);
    }
}
