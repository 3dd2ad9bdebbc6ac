package dev.samsa.fault;

import org.apache.kafka.common.protocol.Errors;

/**
 * What an interceptor decides for one request, and whether it stays installed afterwards. A pass stays installed
 * (an observer sees every request); a verdict that acts on the request is one-shot. {@link #andKeep()} and
 * {@link #andRemove()} say otherwise.
 */
public record Verdict(Action action, Errors error, long delayMs, boolean keep) {

    public enum Action {
        /** The request goes on to the next interceptor, then to its handler. */
        PASS,
        /** The request is answered with {@link #error()}; its handler never sees it. */
        FAIL,
        /** The request is handled after {@link #delayMs()} of wall time. */
        DELAY
    }

    public Verdict {
        if (action == Action.FAIL && error == null) {
            throw new IllegalArgumentException("A failing verdict needs an error");
        }
        if (delayMs < 0) {
            throw new IllegalArgumentException("A delay cannot be negative; got " + delayMs + " ms");
        }
    }

    public static Verdict pass() {
        return new Verdict(Action.PASS, null, 0, true);
    }

    public static Verdict fail(Errors error) {
        return new Verdict(Action.FAIL, error, 0, false);
    }

    public static Verdict delay(long delayMs) {
        return new Verdict(Action.DELAY, null, delayMs, false);
    }

    public Verdict andKeep() {
        return new Verdict(action, error, delayMs, true);
    }

    public Verdict andRemove() {
        return new Verdict(action, error, delayMs, false);
    }
}
