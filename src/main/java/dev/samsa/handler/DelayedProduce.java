package dev.samsa.handler;

import dev.samsa.cluster.DelayedOperation;
import dev.samsa.wire.KafkaRequest;
import dev.samsa.cluster.ProduceHistory;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.protocol.Errors;

/** acks=-1: done when the high watermark passes every batch appended, or with REQUEST_TIMED_OUT. */
final class DelayedProduce extends DelayedOperation {
    private final KafkaRequest request;
    private final ProduceResponseData response;
    private final Map<TopicPartition, Long> requiredOffsets;
    private final Map<TopicPartition, PartitionProduceResponse> results;
    private final Map<TopicPartition, List<ProduceHistory.AckedBatch>> appended;
    private final BrokerContext broker;

    DelayedProduce(KafkaRequest request, ProduceResponseData response, Map<TopicPartition, Long> requiredOffsets,
                   Map<TopicPartition, PartitionProduceResponse> results,
                   Map<TopicPartition, List<ProduceHistory.AckedBatch>> appended, BrokerContext broker) {
        this.appended = appended;
        this.request = request;
        this.response = response;
        this.requiredOffsets = requiredOffsets;
        this.results = results;
        this.broker = broker;
    }

    @Override
    public boolean tryComplete() {
        for (Map.Entry<TopicPartition, Long> e : requiredOffsets.entrySet()) {
            if (broker.replicaManager().acksAllOutcome(broker.brokerId(), e.getKey(), e.getValue()) == null) {
                return false;
            }
        }
        return forceComplete();
    }

    @Override
    protected void onComplete() {
        for (Map.Entry<TopicPartition, Long> e : requiredOffsets.entrySet()) {
            Errors outcome = broker.replicaManager().acksAllOutcome(broker.brokerId(), e.getKey(), e.getValue());
            Errors error = outcome == null ? Errors.REQUEST_TIMED_OUT : outcome;
            if (error != Errors.NONE) {
                results.get(e.getKey()).setErrorCode(error.code()).setBaseOffset(-1);
            } else {
                broker.cluster().produceHistory().acknowledged(appended.getOrDefault(e.getKey(), List.of()));
            }
        }
        request.respond(response);
    }
}
