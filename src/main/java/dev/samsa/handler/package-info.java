/**
 * One thin class per Kafka API ({@code ProduceHandler}, {@code FetchHandler}, ...), each headed by the versions it
 * serves.
 *
 * <p>The loop contract. Network threads decode a request and queue it; every handler runs on the cluster loop, one
 * request at a time, so it reads and changes cluster state without locks. A handler translates wire to domain and
 * back, nothing more: it checks what only the wire can tell (such as versions, duplicate entries, acks values), calls the
 * domain ({@code ReplicaManager}, {@code Controller}, the group coordinator) with plain values, and turns the small
 * results it gets back ({@code LogReadResult}, {@code LogAppendResult}, ...) into the response message. Handlers never
 * touch {@code dev.samsa.log}; the domain never sees a request or response message of kafka-clients.
 *
 * <p>What must wait is parked, never blocked on. An acks=all produce ({@code DelayedProduce}) and a fetch long-poll
 * ({@code FetchHandler.DelayedFetch}) go into the purgatory ({@code DelayedOperations}) watched by partition; the
 * domain retries them when the high watermark moves or leadership changes there, and a cluster-time timer (capped in
 * wall time, so a manual clock never makes a client time out) completes them otherwise. A parked operation answers
 * exactly once, from the loop, through its request.
 */
package dev.samsa.handler;
