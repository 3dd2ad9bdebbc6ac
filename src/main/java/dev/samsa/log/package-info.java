/**
 * Partition logs: segments of record batches in memory-mapped files, their offset and time
 * indexes, recovery after a crash or power loss, leader epochs and idempotent producer state.
 *
 * <p>Reads. {@link dev.samsa.log.PartitionLog} reads whole batches from one segment: from the batch that holds the
 * fetch offset (so the first batch may begin before it), up to the byte limit (the first batch whole even if larger,
 * when asked), and never a batch whose last offset reaches the given bound, which the caller sets: the high watermark
 * for a consumer's fetch, the last stable offset for a read_committed one, the log end for a follower's.
 * {@code read} returns the batches as a heap copy ({@code LogReadInfo} over {@code MemoryRecords}).
 * {@code readMapped} returns them in place, as {@link dev.samsa.log.MappedRecords} over read-only views of the
 * segment's mapping, with no copy: a fetch response writes them from the mapping to the socket, and a follower
 * copies them once, into its own mapping. Whoever ends up with mapped records closes them (the connection's writer,
 * once sent); a segment truncated while they are being sent makes the send fail rather than send changed bytes.
 *
 * <p>Threading: nothing here is thread-safe. The cluster loop owns every log and is the only
 * thread that calls into it; the records reads return, copied or mapped, may be handed to other threads.
 *
 * <p>Time: the log never reads a clock. Operations that depend on time take the cluster time as a
 * {@code nowMs} parameter.
 */
package dev.samsa.log;
