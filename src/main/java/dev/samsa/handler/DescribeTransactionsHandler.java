package dev.samsa.handler;

import dev.samsa.txn.TransactionMetadata;
import dev.samsa.txn.TransactionState;
import dev.samsa.wire.KafkaRequest;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.DescribeTransactionsRequestData;
import org.apache.kafka.common.message.DescribeTransactionsResponseData;
import org.apache.kafka.common.message.DescribeTransactionsResponseData.TopicData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/**
 * DescribeTransactions v0: the state of each transactional id this broker coordinates, as Kafka's
 * handleDescribeTransactions: state, producer id and epoch, timeout, start time of the open or last transaction (-1
 * before the first since InitProducerId) and the partitions of the open transaction (once it is prepared, only those
 * still waiting for their marker). An empty id answers INVALID_REQUEST, one this broker does not coordinate
 * NOT_COORDINATOR (Admin finds the coordinator of each id first), an unknown id TRANSACTIONAL_ID_NOT_FOUND.
 */
final class DescribeTransactionsHandler implements ApiHandler {

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.DESCRIBE_TRANSACTIONS;
    }

    @Override
    public void handle(KafkaRequest request, BrokerContext broker) {
        DescribeTransactionsRequestData data = request.data();
        DescribeTransactionsResponseData response = new DescribeTransactionsResponseData();
        for (String transactionalId : data.transactionalIds()) {
            response.transactionStates().add(
                    broker.authorized(request, AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, transactionalId)
                            ? describe(broker, transactionalId)
                            : new DescribeTransactionsResponseData.TransactionState().setTransactionalId(transactionalId)
                                    .setErrorCode(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code()));
        }
        request.respond(response);
    }

    private static DescribeTransactionsResponseData.TransactionState describe(BrokerContext broker, String transactionalId) {
        DescribeTransactionsResponseData.TransactionState answer =
                new DescribeTransactionsResponseData.TransactionState().setTransactionalId(transactionalId);
        if (transactionalId.isEmpty()) {
            return answer.setErrorCode(Errors.INVALID_REQUEST.code());
        }
        TransactionMetadata m;
        try {
            m = broker.transactions().describe(broker.brokerId(), transactionalId);
        } catch (ApiException e) {
            return answer.setErrorCode(Errors.forException(e).code());
        }
        if (m == null || m.state() == TransactionState.DEAD) {
            return answer.setErrorCode(Errors.TRANSACTIONAL_ID_NOT_FOUND.code());
        }
        for (TopicPartition tp : broker.transactions().describedPartitions(m)) {
            TopicData topic = answer.topics().find(tp.topic());
            if (topic == null) {
                topic = new TopicData().setTopic(tp.topic());
                answer.topics().add(topic);
            }
            topic.partitions().add(tp.partition());
        }
        return answer.setProducerId(m.producerId()).setProducerEpoch(m.producerEpoch())
                .setTransactionState(m.state().toString()).setTransactionTimeoutMs(m.timeoutMs())
                .setTransactionStartTimeMs(m.startTimeMs());
    }
}
