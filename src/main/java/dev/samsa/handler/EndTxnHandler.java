package dev.samsa.handler;

import dev.samsa.wire.KafkaRequest;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.EndTxnResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * EndTxn v0-5: commits or aborts the transaction, answered once PrepareCommit or PrepareAbort is replicated; the
 * markers follow. v5 is transaction version 2 (KIP-890, as Kafka's TransactionVersion.transactionVersionForEndTxn):
 * the coordinator bumps the epoch and v5 answers the producer id and epoch the client goes on with (a new producer id
 * at epoch 0 once the epochs of the old one ran out); v0-4 keep the epoch. PRODUCER_FENCED shows as
 * INVALID_PRODUCER_EPOCH below v2, as Kafka answers old clients.
 */
final class EndTxnHandler implements ApiHandler {

    /** The first EndTxn version that only a transaction version 2 client sends. */
    private static final short TRANSACTION_V2_VERSION = 5;

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.END_TXN;
    }

    @Override
    public void handle(KafkaRequest request, BrokerContext broker) {
        EndTxnRequestData data = request.data();
        broker.requireTransactionalId(request, data.transactionalId());
        short clientTransactionVersion = (short) (request.version() >= TRANSACTION_V2_VERSION ? 2 : 0);
        broker.transactions().endTransaction(broker.brokerId(), data.transactionalId(), data.producerId(), data.producerEpoch(),
                data.committed(), clientTransactionVersion, result -> {
                    Errors error = result.error();
                    Errors answer = error == Errors.PRODUCER_FENCED && request.version() < 2 ? Errors.INVALID_PRODUCER_EPOCH : error;
                    request.respond(new EndTxnResponseData().setErrorCode(answer.code())
                            .setProducerId(result.producerId()).setProducerEpoch(result.producerEpoch()));
                });
    }
}
