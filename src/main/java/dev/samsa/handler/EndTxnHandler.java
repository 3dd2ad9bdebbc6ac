package dev.samsa.handler;

import dev.samsa.wire.KafkaRequest;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.EndTxnResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.RecordBatch;

/**
 * EndTxn v0-5: commits or aborts the transaction (transaction version 1: no epoch bump, so v5's producer id and epoch
 * are answered -1, as Kafka does for a version 1 client). Answered once PrepareCommit or PrepareAbort is replicated;
 * the markers follow. PRODUCER_FENCED shows as INVALID_PRODUCER_EPOCH below v2, as Kafka answers old clients.
 */
final class EndTxnHandler implements ApiHandler {

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.END_TXN;
    }

    @Override
    public void handle(KafkaRequest request, BrokerContext broker) {
        EndTxnRequestData data = request.data();
        broker.transactions().endTransaction(broker.brokerId(), data.transactionalId(), data.producerId(), data.producerEpoch(),
                data.committed(), (short) (request.version() >= 5 ? 2 : 0), error -> {
                    Errors answer = error == Errors.PRODUCER_FENCED && request.version() < 2 ? Errors.INVALID_PRODUCER_EPOCH : error;
                    request.respond(new EndTxnResponseData().setErrorCode(answer.code())
                            .setProducerId(RecordBatch.NO_PRODUCER_ID).setProducerEpoch(RecordBatch.NO_PRODUCER_EPOCH));
                });
    }
}
