package dev.samsa.handler;

import dev.samsa.cluster.LogAppendResult;
import dev.samsa.cluster.Partition;
import dev.samsa.cluster.ProduceHistory;
import dev.samsa.cluster.Topic;
import dev.samsa.wire.KafkaRequest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.InvalidTxnStateException;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnknownServerException;
import org.apache.kafka.common.errors.UnknownTopicIdException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.message.ProduceResponseData.TopicProduceResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.BaseRecords;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.RequestUtils;
import org.apache.kafka.common.resource.ResourceType;

/**
 * Produce v3-13 (v13 names topics by id). acks=0 gets no answer (an error closes the connection, as Kafka signals
 * it); acks=1 answers after the leader's append; acks=-1 is parked until the high watermark passes every appended
 * batch, or answers REQUEST_TIMED_OUT after timeoutMs. Records are validated by the log (magic v2, CRC, counts,
 * max.message.bytes, idempotent sequences). Transactional batches without a transactional id get
 * TRANSACTIONAL_ID_AUTHORIZATION_FAILED and internal topics INVALID_TOPIC_EXCEPTION, as Kafka answers clients. With
 * transaction.partition.verification.enable (KIP-890 part 1, Kafka's default true) the transaction coordinator first
 * verifies that each partition with a transactional batch is in the producer's open transaction; a partition that is
 * not is refused, so a late produce cannot open a transaction nobody will end (a hanging transaction). Unlike Kafka,
 * which asks only for a partition without an open transaction of that producer in its log, every transactional batch
 * is verified: in one JVM the question costs nothing. From v12 (transaction version 2, KIP-890 part 2; only a client
 * that saw transaction.version 2 finalized sends it) the coordinator instead ADDS the partitions to the producer's
 * transaction, a replicated write, before the append, whatever the verification config says, as Kafka does: the
 * produce itself opens the transaction, and a late produce of an ended one carries an epoch the end has bumped past.
 */
final class ProduceHandler implements ApiHandler {

    /**
     * The first Produce version that only a transaction version 2 client sends (Kafka's AddPartitionsToTxnManager
     * ADD_PARTITION operation): its transactional batches add their partitions to the transaction.
     */
    private static final short TRANSACTION_V2_VERSION = 12;

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.PRODUCE;
    }

    @Override
    public void handle(KafkaRequest request, BrokerContext broker) {
        ProduceRequestData data = request.data();
        short acks = data.acks();
        if (data.transactionalId() != null
                && !broker.authorized(request, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, data.transactionalId())) {
            request.respondWithError(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
            return;
        }
        if (data.transactionalId() == null && hasTransactionalRecords(request)) {
            // As Kafka's KafkaApis: transactional batches need a transactional id the principal may use.
            if (acks == 0) {
                request.closeConnection("acks=0 produce of transactional records without a transactional id");
            } else {
                request.respondWithError(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
            }
            return;
        }
        boolean addsPartitions = request.version() >= TRANSACTION_V2_VERSION;
        if (data.transactionalId() != null
                && (addsPartitions || broker.configs().getBoolean("transaction.partition.verification.enable"))) {
            TransactionalBatches txn = transactionalBatches(data, broker);
            if (!txn.partitions().isEmpty()) {
                Consumer<Map<TopicPartition, Errors>> then = errors -> append(request, broker, unverified(errors, request.version()));
                if (addsPartitions) {
                    broker.transactions().addPartitionsImplicitly(data.transactionalId(), txn.producerId(), txn.producerEpoch(),
                            txn.partitions(), then);
                } else {
                    broker.transactions().verifyPartitions(data.transactionalId(), txn.producerId(), txn.producerEpoch(),
                            txn.partitions(), then);
                }
                return;
            }
        }
        append(request, broker, Map.of());
    }

    /** Appends what passed verification; {@code unverified} holds the error of each partition that did not. */
    private static void append(KafkaRequest request, BrokerContext broker, Map<TopicPartition, ApiException> unverified) {
        ProduceRequestData data = request.data();
        short acks = data.acks();
        Map<TopicPartition, PartitionProduceResponse> results = new LinkedHashMap<>();
        Map<TopicPartition, Long> waitFor = new LinkedHashMap<>();
        Map<TopicPartition, List<ProduceHistory.AckedBatch>> appended = new LinkedHashMap<>();
        List<TopicProduceResponse> topics = new ArrayList<>();
        for (ProduceRequestData.TopicProduceData topicData : data.topicData()) {
            TopicProduceResponse topicResponse = new TopicProduceResponse().setName(topicData.name()).setTopicId(topicData.topicId());
            topics.add(topicResponse);
            String name = topicName(topicData, broker);
            for (ProduceRequestData.PartitionProduceData pd : topicData.partitionData()) {
                PartitionProduceResponse pr = new PartitionProduceResponse().setIndex(pd.index()).setBaseOffset(-1)
                        .setLogAppendTimeMs(-1).setLogStartOffset(-1);
                topicResponse.partitionResponses().add(pr);
                try {
                    if (acks != 0 && acks != 1 && acks != -1) {
                        throw Errors.INVALID_REQUIRED_ACKS.exception();
                    }
                    String aclName = name != null ? name : topicData.name();
                    if (aclName != null && !aclName.isEmpty()
                            && !broker.authorized(request, AclOperation.WRITE, ResourceType.TOPIC, aclName)) {
                        throw new TopicAuthorizationException(Set.of(aclName));
                    }
                    if (name == null) {
                        throw request.version() >= 13
                                ? new UnknownTopicIdException("Unknown topic id " + topicData.topicId())
                                : new UnknownTopicOrPartitionException("Unknown topic " + topicData.name());
                    }
                    if (org.apache.kafka.common.internals.Topic.isInternal(name)) {
                        throw new InvalidTopicException("Cannot append to internal topic " + name);
                    }
                    TopicPartition tp = new TopicPartition(name, pd.index());
                    if (pd.records() == null) {
                        // Kafka's append meets null records with a NullPointerException: UNKNOWN_SERVER_ERROR.
                        throw new UnknownServerException("Produce request to " + tp + " has null records");
                    }
                    validateRecords(request.version(), pd.records(), tp);
                    if (unverified.containsKey(tp)) {
                        throw unverified.get(tp);
                    }
                    LogAppendResult info = broker.replicaManager().appendAsLeader(broker.brokerId(), tp, (MemoryRecords) pd.records(), acks);
                    appended.put(tp, broker.cluster().produceHistory().appended(tp, (MemoryRecords) pd.records(),
                            info.firstOffset(), acks, broker.brokerId(), broker.cluster().nowMs()));
                    pr.setBaseOffset(info.firstOffset()).setLogAppendTimeMs(info.logAppendTime()).setLogStartOffset(info.logStartOffset());
                    results.put(tp, pr);
                    waitFor.put(tp, info.lastOffset() + 1);
                } catch (ApiException e) {
                    pr.setErrorCode(Errors.forException(e).code()).setErrorMessage(KafkaRequest.fitErrorMessage(e.getMessage()));
                }
            }
        }
        ProduceResponseData response = new ProduceResponseData();
        topics.forEach(t -> response.responses().add(t));
        if (acks == 0) {
            boolean failed = topics.stream().flatMap(t -> t.partitionResponses().stream()).anyMatch(p -> p.errorCode() != 0);
            if (failed) {
                request.closeConnection("acks=0 produce failed: " + response);
            } else {
                request.respondNothing();
            }
            return;
        }
        if (acks == 1 || waitFor.isEmpty()) {
            appended.values().forEach(broker.cluster().produceHistory()::acknowledged);
            request.respond(response);
            return;
        }
        broker.cluster().purgatory().tryCompleteElseWatch(
                new DelayedProduce(request, response, waitFor, results, appended, broker), waitFor.keySet(), data.timeoutMs(), "produce");
    }

    /** The producer of a request's transactional batches and the partitions they go to. */
    private record TransactionalBatches(long producerId, short producerEpoch, Set<TopicPartition> partitions) {
    }

    /**
     * As Kafka's handleProduceAppend: the partitions with a transactional batch, to be verified (or, from v12, added).
     * Batches that cannot be walked, and partitions that do not exist or that this broker does not lead (as the append
     * decides it), are left to the per-partition checks, which answer for them: Kafka asks the coordinator only
     * through the leader's log, so a produce that reaches a follower never adds its partition to the transaction.
     */
    private static TransactionalBatches transactionalBatches(ProduceRequestData data, BrokerContext broker) {
        long producerId = RecordBatch.NO_PRODUCER_ID;
        short producerEpoch = RecordBatch.NO_PRODUCER_EPOCH;
        Set<TopicPartition> partitions = new HashSet<>();
        for (ProduceRequestData.TopicProduceData topicData : data.topicData()) {
            String name = topicName(topicData, broker);
            for (ProduceRequestData.PartitionProduceData pd : topicData.partitionData()) {
                if (name == null || !(pd.records() instanceof MemoryRecords records) || !leads(broker, name, pd.index())) {
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

    /** Batches that cannot even be walked are left to the per-partition checks, which answer for them. */
    private static boolean hasTransactionalRecords(KafkaRequest request) {
        try {
            return RequestUtils.hasTransactionalRecords((ProduceRequest) request.body());
        } catch (RuntimeException e) {
            return false;
        }
    }

    /**
     * kafka-clients' version checks. A batch with an unknown compression id makes them throw a plain
     * IllegalArgumentException, which Kafka answers with UNKNOWN_SERVER_ERROR: the same here, as the client's error.
     */
    private static void validateRecords(short version, BaseRecords records, TopicPartition tp) {
        try {
            ProduceRequest.validateRecords(version, records);
        } catch (ApiException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new UnknownServerException("Record batch sent to " + tp + " cannot be read: " + e.getMessage());
        }
    }

    private static String topicName(ProduceRequestData.TopicProduceData topicData, BrokerContext broker) {
        if (topicData.topicId() != null && !Uuid.ZERO_UUID.equals(topicData.topicId())) {
            Topic topic = broker.cluster().metadata().topic(topicData.topicId());
            return topic == null ? null : topic.name();
        }
        return topicData.name();
    }
}
