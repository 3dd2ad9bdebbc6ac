package dev.samsa.coordinator;

import java.util.function.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;

/**
 * What a coordinator asks the transaction coordinator before it writes records in a producer's transaction to its own
 * partition, as Kafka's {@code PartitionWriter.maybeStartTransactionVerification}: with transaction version 2 it has
 * the partition ADDED to the producer's ongoing transaction (a replicated write), with version 1 it only VERIFIES that
 * the client added it (KIP-890 part 1). Kept here, not in {@code txn/}, so that the group coordinator can ask without
 * depending on the transaction coordinator.
 */
@FunctionalInterface
public interface TransactionVerification {

    /**
     * Adds or verifies {@code tp} in the transaction of {@code transactionalId} held by {@code producerId} at
     * {@code producerEpoch}; {@code done} hears NONE, or the transaction coordinator's error (PRODUCER_FENCED,
     * INVALID_PRODUCER_ID_MAPPING, TRANSACTION_ABORTABLE for a partition not added, CONCURRENT_TRANSACTIONS, a routing
     * error).
     */
    void addOrVerify(String transactionalId, long producerId, short producerEpoch, TopicPartition tp, boolean add,
                     Consumer<Errors> done);
}
