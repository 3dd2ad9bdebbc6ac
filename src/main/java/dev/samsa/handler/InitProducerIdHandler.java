package dev.samsa.handler;

import dev.samsa.txn.TransactionCoordinator;
import dev.samsa.wire.KafkaRequest;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.resource.ResourceType;

/**
 * InitProducerId v0-5. Without a transactional id (an idempotent producer): always a fresh producer id with epoch 0,
 * as Kafka's coordinator does (the client bumps its epoch itself). With one: the transaction coordinator's answer
 * ({@link TransactionCoordinator#initProducerId}), PRODUCER_FENCED shown as INVALID_PRODUCER_EPOCH below v4 as Kafka
 * does for old clients. A request naming only one of producer id and epoch gets INVALID_REQUEST. v6 (two-phase
 * commit, KIP-939) is not advertised: Kafka 4.4 still marks it unstable, so a default 4.4 broker does not advertise
 * it either. Its fields are answered as a broker with two-phase commit off does, for when it is: enable2Pc gets
 * TRANSACTIONAL_ID_AUTHORIZATION_FAILED and keepPreparedTxn UNSUPPORTED_VERSION.
 */
final class InitProducerIdHandler implements ApiHandler {

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.INIT_PRODUCER_ID;
    }

    @Override
    public void handle(KafkaRequest request, BrokerContext broker) {
        InitProducerIdRequestData data = request.data();
        InitProducerIdResponseData response = new InitProducerIdResponseData().setProducerId(-1).setProducerEpoch((short) -1);
        boolean namesId = data.producerId() != RecordBatch.NO_PRODUCER_ID;
        boolean namesEpoch = data.producerEpoch() != RecordBatch.NO_PRODUCER_EPOCH;
        if (namesId != namesEpoch) {
            request.respond(response.setErrorCode(Errors.INVALID_REQUEST.code()));
            return;
        }
        if (data.transactionalId() == null) {
            // As Kafka: an idempotent producer needs IDEMPOTENT_WRITE on the cluster or WRITE on some topic.
            if (!broker.authorizedQuietly(request, AclOperation.IDEMPOTENT_WRITE, ResourceType.CLUSTER, Acls.CLUSTER_NAME)
                    && !broker.authorizedForAny(request, AclOperation.WRITE, ResourceType.TOPIC)) {
                broker.recordDenial(request, AclOperation.IDEMPOTENT_WRITE, ResourceType.CLUSTER, Acls.CLUSTER_NAME);
                request.respond(response.setErrorCode(Errors.CLUSTER_AUTHORIZATION_FAILED.code()));
                return;
            }
            request.respond(response.setProducerId(broker.cluster().producerIds().nextProducerId()).setProducerEpoch((short) 0));
            return;
        }
        if (!broker.authorized(request, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, data.transactionalId())) {
            request.respond(response.setErrorCode(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code()));
            return;
        }
        if (data.enable2Pc()) {
            request.respond(response.setErrorCode(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code()));
            return;
        }
        if (data.keepPreparedTxn()) {
            request.respond(response.setErrorCode(Errors.UNSUPPORTED_VERSION.code()));
            return;
        }
        broker.transactions().initProducerId(broker.brokerId(), data.transactionalId(), data.transactionTimeoutMs(),
                data.producerId(), data.producerEpoch(), result -> {
                    Errors error = result.error() == Errors.PRODUCER_FENCED && request.version() < 4
                            ? Errors.INVALID_PRODUCER_EPOCH : result.error();
                    request.respond(response.setProducerId(result.producerId()).setProducerEpoch(result.producerEpoch())
                            .setErrorCode(error.code()));
                });
    }
}
