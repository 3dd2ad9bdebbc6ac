package dev.samsa;

import java.time.Duration;
import java.util.Objects;
import java.util.Set;

/**
 * Decides what becomes of a client request before its broker handles it: let it through, answer it with an error, or
 * hold it for a while. Installed with {@link Faults#intercept(Api, RequestInterceptor)} (requests of one API) or
 * {@link Faults#interceptAll(RequestInterceptor)} (every request); {@link Faults#failNext} is one of these.
 *
 * <pre>{@code
 * AtomicInteger commits = new AtomicInteger();
 * cluster.faults().intercept(Api.OFFSET_COMMIT, request -> {
 *     commits.incrementAndGet();
 *     return Verdict.pass();                             // observe only: the commit goes through
 * });
 * cluster.faults().intercept(Api.PRODUCE, request ->
 *     request.brokerId() == 2 ? Verdict.fail(KafkaError.NOT_LEADER_OR_FOLLOWER) : Verdict.pass());
 * }</pre>
 *
 * <p><b>Order.</b> Interceptors run in the order they were installed, each seeing the request in turn, until one
 * acts on it (fails or delays it); that one decides, and those installed after it do not see the request. A request
 * that none acts on goes to its handler, after the broker's {@linkplain Faults#latency added latency}, if any.
 * Requests a broker refuses before handling (a version it does not serve, a malformed frame) reach no interceptor.
 *
 * <p><b>Lifetime.</b> An interceptor that lets a request through ({@link Verdict#pass()}) stays installed, so an
 * observer sees every request of its API. One that acts is removed after that request (one-shot), unless its verdict
 * says {@link Verdict#andKeep()}. {@link Verdict#andRemove()} removes an observer after the request it passes, and
 * {@link Faults.Interception#remove()} removes an interceptor from the test's thread. These are kfake's
 * {@code ControlKey}, {@code KeepControl} and {@code DropControl}.
 *
 * <p><b>Threading.</b> Interceptors run on the cluster loop, one request at a time, before any handler: while one
 * runs, the whole cluster waits. So an interceptor must not block (no sleeps, no waiting on a client or a latch); to
 * hold a request, return {@link Verdict#delay}. State it shares with the test's thread must be safe to read from
 * another thread (an {@code AtomicInteger}, a concurrent queue). It may read the cluster ({@code partition()},
 * {@code group()}) and install or remove interceptors; those it installs see later requests only. An exception it
 * throws answers the request UNKNOWN_SERVER_ERROR and is kept in {@link KafkaCluster#internalErrors()}, which the
 * JUnit extension turns into a failed test; the interceptor stays installed.
 */
@FunctionalInterface
public interface RequestInterceptor {

    /** @return what becomes of {@code request}; never null */
    Verdict intercept(Request request);

    /**
     * What an interceptor sees of a request: its header, the broker it reached, and the topics it names (Produce,
     * Fetch, ListOffsets, Metadata, OffsetCommit and DeleteRecords; empty for other APIs).
     */
    record Request(Api api, short version, int brokerId, String clientId, int correlationId, Set<String> topics) {
    }

    /** What becomes of one request, and whether the interceptor stays installed (see {@link RequestInterceptor}). */
    final class Verdict {

        private final dev.samsa.fault.Verdict verdict;

        private Verdict(dev.samsa.fault.Verdict verdict) {
            this.verdict = verdict;
        }

        /** The request goes on, to the next interceptor and then its handler; the interceptor stays installed. */
        public static Verdict pass() {
            return new Verdict(dev.samsa.fault.Verdict.pass());
        }

        /** The request is answered with {@code error} and never handled; the interceptor is then removed. */
        public static Verdict fail(KafkaError error) {
            return new Verdict(dev.samsa.fault.Verdict.fail(Objects.requireNonNull(error, "error").toErrors()));
        }

        /**
         * The request is handled after {@code delay} of wall time (plus the broker's added latency); the interceptor is
         * then removed. Later requests on the same connection are answered after it, as Kafka answers in order.
         */
        public static Verdict delay(Duration delay) {
            if (delay.isNegative()) {
                throw new IllegalArgumentException("A delay cannot be negative; got " + delay);
            }
            return new Verdict(dev.samsa.fault.Verdict.delay(delay.toMillis()));
        }

        /** This verdict, and the interceptor stays installed for later requests. */
        public Verdict andKeep() {
            return new Verdict(verdict.andKeep());
        }

        /** This verdict, and the interceptor is removed: it sees no later request. */
        public Verdict andRemove() {
            return new Verdict(verdict.andRemove());
        }

        dev.samsa.fault.Verdict toFault() {
            return verdict;
        }

        @Override
        public String toString() {
            return verdict.action() + (verdict.error() != null ? " " + verdict.error() : "")
                    + (verdict.action() == dev.samsa.fault.Verdict.Action.DELAY ? " " + verdict.delayMs() + " ms" : "")
                    + (verdict.keep() ? ", kept" : ", removed");
        }
    }
}
