package dev.samsa.handler;

import dev.samsa.wire.KafkaRequest;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.RecordBatch;

/**
 * InitProducerId v0-6 for idempotent producers: always a fresh producer id with epoch 0, as Kafka's coordinator
 * does when there is no transactional id (the client bumps its epoch itself); a request naming only one of producer
 * id and epoch gets INVALID_REQUEST. Transactional ids need the transaction coordinator, which is not implemented:
 * they get NOT_COORDINATOR.
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
        if (data.transactionalId() != null) {
            request.respond(response.setErrorCode(Errors.NOT_COORDINATOR.code()));
            return;
        }
        boolean namesId = data.producerId() != RecordBatch.NO_PRODUCER_ID;
        boolean namesEpoch = data.producerEpoch() != RecordBatch.NO_PRODUCER_EPOCH;
        if (namesId != namesEpoch) {
            request.respond(response.setErrorCode(Errors.INVALID_REQUEST.code()));
            return;
        }
        request.respond(response.setProducerId(broker.cluster().producerIds().nextProducerId()).setProducerEpoch((short) 0));
    }
}
