/**
 * Compaction, as Kafka's log cleaner: {@link dev.samsa.log.cleaner.LogToClean} (what part of a log a pass may rewrite,
 * and whether it is dirty enough, or old enough, to clean), {@link dev.samsa.log.cleaner.Cleaner} (one pass: map every
 * key of the dirty part to its last offset, then rewrite the segments keeping the latest record of each key at its
 * offset, tombstones until their delete horizon, and no aborted transactional records) and its record filter.
 *
 * <p>When to clean is decided in {@code cluster/LogCleaner}, on the cluster clock; this package never reads a clock
 * and runs on the cluster loop.
 */
package dev.samsa.log.cleaner;
