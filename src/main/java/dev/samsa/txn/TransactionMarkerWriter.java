package dev.samsa.txn;

import dev.samsa.event.TxnMarkerWritten;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the COMMIT or ABORT markers of a prepared transaction to the leader of each of its partitions, as Kafka's
 * {@code TransactionMarkerChannelManager} does with WriteTxnMarkers: append on the leader, wait until the marker is
 * replicated (acks=all), and try again on whoever leads next when leadership moves or the append fails for a reason
 * that passes. When every partition has its marker, the coordinator completes the transaction. Owned by the cluster
 * loop.
 */
final class TransactionMarkerWriter {

    private static final Logger LOG = LoggerFactory.getLogger(TransactionMarkerWriter.class);
    /** Kafka's WriteTxnMarkers sender retries after its backoff; wall time, so that a manual clock never stalls it. */
    static final long RETRY_BACKOFF_MS = 100;

    private final TransactionCoordinatorContext context;
    private long retries;

    /** The partitions each prepared transaction still owes a marker, by transactional id (Kafka's removePartition). */
    private final Map<String, Owed> owed = new HashMap<>();

    private record Owed(TransactionMetadata prepared, Set<TopicPartition> partitions) {
    }

    TransactionMarkerWriter(TransactionCoordinatorContext context) {
        this.context = context;
    }

    /**
     * The partitions of {@code prepared} still waiting for their marker, as Kafka's DescribeTransactions lists them
     * while a transaction ends; all of them until this writer has started on it.
     */
    Set<TopicPartition> owedMarkers(TransactionMetadata prepared) {
        Owed o = owed.get(prepared.transactionalId());
        return o != null && o.prepared().equals(prepared) ? Set.copyOf(o.partitions()) : prepared.partitions();
    }

    /**
     * Writes the markers of {@code prepared} (in PrepareCommit or PrepareAbort) with {@code coordinatorEpoch}, then calls
     * {@code done}; stops silently as soon as {@code stillCurrent} says the coordinator no longer owns this transaction
     * in this state (it lost the partition, or a newer coordinator fenced the markers).
     */
    void writeMarkers(TransactionMetadata prepared, int coordinatorEpoch, Predicate<TransactionMetadata> stillCurrent,
                      Runnable done) {
        Set<TopicPartition> remaining = new HashSet<>(prepared.partitions());
        if (remaining.isEmpty()) {
            done.run();
            return;
        }
        Owed entry = new Owed(prepared, remaining);
        owed.put(prepared.transactionalId(), entry);
        for (TopicPartition tp : prepared.partitions()) {
            send(new Marker(prepared, tp, coordinatorEpoch), stillCurrent, written -> {
                remaining.remove(tp);
                if (remaining.isEmpty()) {
                    owed.remove(prepared.transactionalId(), entry);
                    done.run();
                }
            });
        }
    }

    private record Marker(TransactionMetadata txn, TopicPartition tp, int coordinatorEpoch) {
        boolean committed() {
            return txn.state() == TransactionState.PREPARE_COMMIT;
        }
    }

    private void send(Marker marker, Predicate<TransactionMetadata> stillCurrent, Consumer<TopicPartition> written) {
        if (!stillCurrent.test(marker.txn())) {
            return;
        }
        int leader = context.leaderOf(marker.tp());
        if (leader == TransactionCoordinatorContext.NO_PARTITION) {
            // As Kafka: a partition that no longer exists (its topic was deleted) needs no marker.
            written.accept(marker.tp());
            return;
        }
        if (leader < 0) {
            retryLater(marker, stillCurrent, written);
            return;
        }
        if (context.holdMarker(marker.tp(), leader, () -> send(marker, stillCurrent, written))) {
            return;
        }
        context.writeMarker(leader, marker.tp(), marker.txn().producerId(), marker.txn().producerEpoch(),
                marker.coordinatorEpoch(), marker.committed(), (offset, error) -> {
                    if (error == Errors.NONE) {
                        context.timeline().record(new TxnMarkerWritten(marker.txn().transactionalId(), marker.tp().topic(),
                                marker.tp().partition(), marker.txn().producerId(), marker.txn().producerEpoch(),
                                marker.committed(), offset, leader, marker.coordinatorEpoch()));
                        written.accept(marker.tp());
                    } else if (error == Errors.INVALID_PRODUCER_EPOCH || error == Errors.TRANSACTION_COORDINATOR_FENCED) {
                        // As Kafka's completion handler: a newer coordinator or producer epoch owns this partition now.
                        LOG.info("Stopping the {} markers of transactional id {}: {} answered {}",
                                marker.committed() ? "COMMIT" : "ABORT", marker.txn().transactionalId(), marker.tp(), error);
                    } else {
                        // Not appended or not replicated (leadership moved, or the ISR fell below min.insync.replicas):
                        // Kafka sends it again.
                        retryLater(marker, stillCurrent, written);
                    }
                });
    }

    private void retryLater(Marker marker, Predicate<TransactionMetadata> stillCurrent, Consumer<TopicPartition> written) {
        context.scheduler().scheduleWall("txn-marker-retry-" + (retries++), RETRY_BACKOFF_MS,
                () -> send(marker, stillCurrent, written));
    }
}
