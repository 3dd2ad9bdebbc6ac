package dev.samsa;

import dev.samsa.group.GroupCoordinator;
import dev.samsa.txn.TransactionCoordinator;
import dev.samsa.txn.TransactionMetadata;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.TopicPartition;

/**
 * A snapshot of one transactional id at its coordinator, taken on the cluster loop by
 * {@link KafkaCluster#transaction(String)}: what Kafka's DescribeTransactions answers, plus the consumer offsets the open
 * transaction holds pending (sendOffsetsToTransaction), by group.
 *
 * @param state {@link TxnState#DEAD} for an id the cluster does not know (then the producer id and epoch are -1)
 * @param partitions the partitions of the open transaction, or only those still waiting for their marker once it is
 *     prepared (as Kafka's DescribeTransactions); empty otherwise. A transaction that sent offsets lists its group's {@code __consumer_offsets} partition here too.
 * @param pendingOffsets per consumer group, the partitions whose offsets the open transaction committed and that wait
 *     for its marker
 * @param startTime when the open (or last) transaction added its first partition, by the cluster clock; empty when none
 *     has begun since InitProducerId
 * @param coordinator the broker coordinating the id, or -1 when no broker has its shard loaded
 */
public record TransactionView(String transactionalId, TxnState state, long producerId, short producerEpoch, int timeoutMs,
                              SortedSet<GroupPartition> partitions, Map<String, SortedSet<GroupPartition>> pendingOffsets,
                              Optional<Instant> startTime, int coordinator) {

    public TransactionView {
        partitions = java.util.Collections.unmodifiableSortedSet(new TreeSet<>(partitions));
        pendingOffsets = java.util.Collections.unmodifiableMap(new TreeMap<>(pendingOffsets));
    }

    /** Runs on the cluster loop; a pure read: it loads no shard and arms no timer. */
    static TransactionView snapshot(String transactionalId, TransactionCoordinator transactions, GroupCoordinator groups) {
        TransactionMetadata m = transactions.transaction(transactionalId);
        if (m == null) {
            return new TransactionView(transactionalId, TxnState.DEAD, -1, (short) -1, 0, new TreeSet<>(), Map.of(),
                    Optional.empty(), -1);
        }
        Map<String, SortedSet<GroupPartition>> pending = new TreeMap<>();
        groups.pendingTransactionalOffsetsOf(m.producerId()).forEach((group, tps) -> pending.put(group, partitions(tps)));
        return new TransactionView(transactionalId, TxnState.fromKafkaName(m.state().toString()), m.producerId(),
                m.producerEpoch(), m.timeoutMs(), partitions(transactions.describedPartitions(m)), pending,
                m.startTimeMs() < 0 ? Optional.empty() : Optional.of(Instant.ofEpochMilli(m.startTimeMs())),
                transactions.coordinatorOf(transactionalId));
    }

    private static SortedSet<GroupPartition> partitions(Set<TopicPartition> tps) {
        SortedSet<GroupPartition> out = new TreeSet<>();
        tps.forEach(tp -> out.add(new GroupPartition(tp.topic(), tp.partition())));
        return java.util.Collections.unmodifiableSortedSet(out);
    }
}
