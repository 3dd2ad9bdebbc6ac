package dev.samsa.handler;

import dev.samsa.cluster.Partition;
import dev.samsa.wire.KafkaRequest;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.InvalidTxnStateException;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.resource.ResourceType;

/**
 * What a Produce with transactional batches asks the transaction coordinator before it appends, as Kafka's
 * ReplicaManager does through AddPartitionsToTxnManager: with transaction.partition.verification.enable (KIP-890 part
 * 1) whether each partition is in the producer's open transaction; from Produce v12 (transaction version 2, KIP-890
 * part 2) to add the partitions to it, a replicated write, whatever the config says.
 */
final class ProduceTransactionVerification {

    /**
     * The first Produce version that only a transaction version 2 client sends (Kafka's AddPartitionsToTxnManager
     * ADD_PARTITION operation): its transactional batches add their partitions to the transaction.
     */
    static final short TRANSACTION_V2_VERSION = 12;

    private ProduceTransactionVerification() {
    }

    /**
     * Asks the coordinator about the request's transactional partitions and then calls {@code append} with the error
     * of each partition that did not pass; false (and nothing called) when there is nothing to ask.
     */
    static boolean verifyThen(KafkaRequest request, BrokerContext broker, Consumer<Map<TopicPartition, ApiException>> append) {
        ProduceRequestData data = request.data();
        boolean addsPartitions = request.version() >= TRANSACTION_V2_VERSION;
        if (data.transactionalId() == null
                || !(addsPartitions || broker.configs().getBoolean("transaction.partition.verification.enable"))) {
            return false;
        }
        TransactionalBatches txn = transactionalBatches(request, broker);
        if (txn.partitions().isEmpty()) {
            return false;
        }
        Consumer<Map<TopicPartition, Errors>> then = errors -> append.accept(unverified(errors, request.version()));
        if (addsPartitions) {
            broker.transactions().addPartitionsImplicitly(data.transactionalId(), txn.producerId(), txn.producerEpoch(),
                    txn.partitions(), then);
        } else {
            broker.transactions().verifyPartitions(data.transactionalId(), txn.producerId(), txn.producerEpoch(),
                    txn.partitions(), then);
        }
        return true;
    }

    /** The producer of a request's transactional batches and the partitions they go to. */
    private record TransactionalBatches(long producerId, short producerEpoch, Set<TopicPartition> partitions) {
    }

    /**
     * As Kafka's handleProduceAppend: the partitions with a transactional batch, to be verified (or, from v12, added).
     * Batches that cannot be walked, and partitions that do not exist or that this broker does not lead (as the append
     * decides it), are left to the per-partition checks, which answer for them: Kafka asks the coordinator only
     * through the leader's log, so a produce that reaches a follower never adds its partition to the transaction. So
     * are partitions of topics the principal may not WRITE: Kafka verifies only the authorized ones.
     */
    private static TransactionalBatches transactionalBatches(KafkaRequest request, BrokerContext broker) {
        ProduceRequestData data = request.data();
        long producerId = RecordBatch.NO_PRODUCER_ID;
        short producerEpoch = RecordBatch.NO_PRODUCER_EPOCH;
        Set<TopicPartition> partitions = new HashSet<>();
        for (ProduceRequestData.TopicProduceData topicData : data.topicData()) {
            String name = ProduceChecks.topicName(topicData, broker);
            for (ProduceRequestData.PartitionProduceData pd : topicData.partitionData()) {
                if (name == null || !(pd.records() instanceof MemoryRecords records) || !leads(broker, name, pd.index())
                        || !broker.authorizedQuietly(request, AclOperation.WRITE, ResourceType.TOPIC, name)) {
                    continue;
                }
                try {
                    for (RecordBatch batch : records.batches()) {
                        if (batch.hasProducerId() && batch.isTransactional()) {
                            producerId = batch.producerId();
                            producerEpoch = batch.producerEpoch();
                            partitions.add(new TopicPartition(name, pd.index()));
                        }
                    }
                } catch (RuntimeException e) {
                    // Left to validateRecords.
                }
            }
        }
        return new TransactionalBatches(producerId, producerEpoch, partitions);
    }

    private static boolean leads(BrokerContext broker, String topic, int partition) {
        Partition p = broker.cluster().metadata().partition(new TopicPartition(topic, partition));
        return p != null && p.isLedBy(broker.brokerId());
    }

    /**
     * What a produce answers for a partition the coordinator did not verify, as Kafka's ReplicaManager and
     * AddPartitionsToTxnManager translate it: an old epoch is INVALID_PRODUCER_EPOCH; a partition outside the
     * transaction TRANSACTION_ABORTABLE from v11 and INVALID_TXN_STATE before; a coordinator that cannot answer now (or
     * a transaction still ending) NOT_ENOUGH_REPLICAS, which every client retries without a metadata refresh; from
     * v12 a transaction still ending stays CONCURRENT_TRANSACTIONS, as Kafka answers transaction version 2 clients.
     */
    private static Map<TopicPartition, ApiException> unverified(Map<TopicPartition, Errors> verified, short version) {
        Map<TopicPartition, ApiException> out = new HashMap<>();
        verified.forEach((tp, error) -> {
            switch (error) {
                case NONE -> {
                }
                case PRODUCER_FENCED -> out.put(tp, Errors.INVALID_PRODUCER_EPOCH.exception());
                case TRANSACTION_ABORTABLE -> out.put(tp, version > 10 ? error.exception()
                        : new InvalidTxnStateException("Partition was not added to the transaction"));
                case INVALID_TXN_STATE -> out.put(tp, new InvalidTxnStateException("Partition was not added to the transaction"));
                // Left as it is for a version 2 client, to which it is the common answer while a commit completes.
                case CONCURRENT_TRANSACTIONS -> out.put(tp, version >= TRANSACTION_V2_VERSION ? error.exception()
                        : notEnoughReplicas(error));
                case NETWORK_EXCEPTION, COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR ->
                        out.put(tp, notEnoughReplicas(error));
                default -> out.put(tp, error.exception());
            }
        });
        return out;
    }

    private static NotEnoughReplicasException notEnoughReplicas(Errors error) {
        return new NotEnoughReplicasException("Unable to verify the partition has been added to the transaction. "
                + "Underlying error: " + error);
    }
}
