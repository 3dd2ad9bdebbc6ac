package dev.samsa.handler;

import dev.samsa.wire.KafkaRequest;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.RecordBatch;

/**
 * InitProducerId v0-6 for idempotent producers: a fresh producer id with epoch 0, or, when the producer names its
 * current id and epoch (v3+, KIP-360), the same id with the epoch bumped (a new id once the epoch is exhausted).
 * Transactional ids need the transaction coordinator, which is not implemented: they get NOT_COORDINATOR.
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
        long producerId = data.producerId();
        short epoch = data.producerEpoch();
        if (producerId != RecordBatch.NO_PRODUCER_ID && epoch >= 0 && epoch < Short.MAX_VALUE - 1) {
            response.setProducerId(producerId).setProducerEpoch((short) (epoch + 1));
        } else {
            response.setProducerId(broker.cluster().producerIds().nextProducerId()).setProducerEpoch((short) 0);
        }
        request.respond(response);
    }
}
