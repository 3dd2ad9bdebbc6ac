package dev.samsa.handler;

import dev.samsa.wire.KafkaRequest;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData.AddPartitionsToTxnTransaction;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnResult;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData.AddPartitionsToTxnResultCollection;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AddPartitionsToTxnRequest;
import org.apache.kafka.common.requests.AddPartitionsToTxnResponse;
import org.apache.kafka.common.resource.ResourceType;

/**
 * AddPartitionsToTxn v0-5. v0-3 come from clients: one transaction, its partitions added (Ongoing) once replicated.
 * v4+ come from brokers and batch transactions, each either added or, with verifyOnly, only checked (KIP-890
 * verification: TRANSACTION_ABORTABLE for a partition not in the transaction); the answer goes once every
 * transaction has its result. As Kafka's KafkaApis: a partition of an unknown topic (or, from a client, of an internal
 * topic) fails its whole transaction, with UNKNOWN_TOPIC_OR_PARTITION (TOPIC_AUTHORIZATION_FAILED) for it and
 * OPERATION_NOT_ATTEMPTED for the others; PRODUCER_FENCED shows as INVALID_PRODUCER_EPOCH below v2. A client (v0-3)
 * without WRITE on the transactional id gets TRANSACTIONAL_ID_AUTHORIZATION_FAILED on every partition, as Kafka.
 */
final class AddPartitionsToTxnHandler implements ApiHandler {

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.ADD_PARTITIONS_TO_TXN;
    }

    @Override
    public void handle(KafkaRequest request, BrokerContext broker) {
        short version = request.version();
        AddPartitionsToTxnRequest body = (AddPartitionsToTxnRequest) request.body();
        AddPartitionsToTxnRequest normalized = version < 4 ? body.normalizeRequest() : body;
        Map<String, List<TopicPartition>> partitionsByTransaction = normalized.partitionsByTransaction();
        if (version >= 4) {
            // v4+ is the brokers' verification call, as Kafka: CLUSTER_ACTION.
            broker.requireCluster(request, AclOperation.CLUSTER_ACTION);
        }
        List<AddPartitionsToTxnTransaction> transactions = List.copyOf(normalized.data().transactions());
        AddPartitionsToTxnResultCollection results = new AddPartitionsToTxnResultCollection();
        Consumer<AddPartitionsToTxnResult> collect = result -> {
            results.add(result);
            if (results.size() == transactions.size()) {
                AddPartitionsToTxnResponseData response = new AddPartitionsToTxnResponseData();
                if (version < 4) {
                    response.setResultsByTopicV3AndBelow(results.iterator().next().topicResults());
                } else {
                    response.setResultsByTransaction(results);
                }
                request.respond(response);
            }
        };
        if (transactions.isEmpty()) {
            request.respond(new AddPartitionsToTxnResponseData());
            return;
        }
        if (transactions.stream().anyMatch(t -> t.transactionalId() == null)) {
            throw new InvalidRequestException("Transactional ID can not be null in request.");
        }
        for (AddPartitionsToTxnTransaction txn : transactions) {
            String transactionalId = txn.transactionalId();
            Set<TopicPartition> partitions = new HashSet<>(partitionsByTransaction.get(transactionalId));
            if (version < 4 && !broker.authorized(request, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, transactionalId)) {
                collect.accept(normalized.errorResponseForTransaction(transactionalId, Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED));
                continue;
            }
            Map<TopicPartition, Errors> refused = new HashMap<>();
            for (TopicPartition tp : partitions) {
                if (version < 4 && (Topic.isInternal(tp.topic())
                        || !broker.authorized(request, AclOperation.WRITE, ResourceType.TOPIC, tp.topic()))) {
                    // As Kafka: a client may never write to an internal topic, so it is never authorized to add one.
                    refused.put(tp, Errors.TOPIC_AUTHORIZATION_FAILED);
                } else if (broker.cluster().metadata().partition(tp) == null) {
                    refused.put(tp, Errors.UNKNOWN_TOPIC_OR_PARTITION);
                }
            }
            if (!refused.isEmpty()) {
                partitions.forEach(tp -> refused.putIfAbsent(tp, Errors.OPERATION_NOT_ATTEMPTED));
                collect.accept(AddPartitionsToTxnResponse.resultForTransaction(transactionalId, refused));
            } else if (txn.verifyOnly()) {
                broker.transactions().verifyPartitions(broker.brokerId(), transactionalId, txn.producerId(), txn.producerEpoch(),
                        partitions, errors -> collect.accept(AddPartitionsToTxnResponse.resultForTransaction(transactionalId, errors)));
            } else {
                broker.transactions().addPartitions(broker.brokerId(), transactionalId, txn.producerId(), txn.producerEpoch(),
                        partitions, (short) (version > 3 ? 2 : 0), error -> {
                            Errors answer = error == Errors.PRODUCER_FENCED && version < 2 ? Errors.INVALID_PRODUCER_EPOCH : error;
                            collect.accept(normalized.errorResponseForTransaction(transactionalId, answer));
                        });
            }
        }
    }
}
