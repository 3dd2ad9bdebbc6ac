/**
 * Partition logs: segments of record batches in memory-mapped files, their offset and time
 * indexes, recovery after a crash or power loss, leader epochs and idempotent producer state.
 *
 * <p>Threading: nothing here is thread-safe. The cluster loop owns every log and is the only
 * thread that calls into it; records returned by reads are copies that other threads may use.
 *
 * <p>Time: the log never reads a clock. Operations that depend on time take the cluster time as a
 * {@code nowMs} parameter.
 */
package dev.samsa.log;
