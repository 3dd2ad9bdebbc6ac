package dev.samsa;

import java.time.Instant;

/**
 * An unexpected failure inside the cluster: a bug of Samsa's, or a broken classpath (a {@link LinkageError}), never
 * a client's bad request, which Kafka answers with an error code instead. The cluster answers or closes what was
 * affected and keeps serving, and keeps each one here for the test to see (as Kafka's test kit keeps its fatal
 * faults); the JUnit extension fails the test during which one happened.
 *
 * @param brokerId    the broker whose request, connection or listener failed; 0 for cluster-wide work on the loop
 *                    (timers, replication, coordinators)
 * @param thread      the name of the thread it happened on
 * @param clusterTime cluster time when it happened
 * @param error       what was thrown, with its stack trace
 */
public record BrokerError(int brokerId, String thread, Instant clusterTime, Throwable error) {

    @Override
    public String toString() {
        return (brokerId == 0 ? "cluster loop" : "broker " + brokerId) + " thread " + thread + " at " + clusterTime + ": "
                + error;
    }
}
