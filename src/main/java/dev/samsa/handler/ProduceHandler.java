package dev.samsa.handler;

import dev.samsa.cluster.LogAppendResult;
import dev.samsa.cluster.ProduceHistory;
import dev.samsa.wire.KafkaRequest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.message.ProduceResponseData.TopicProduceResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.resource.ResourceType;

/**
 * Produce v3-13 (v13 names topics by id). acks=0 gets no answer (an error closes the connection, as Kafka signals
 * it); acks=1 answers after the leader's append; acks=-1 is parked until the high watermark passes every appended
 * batch, or answers REQUEST_TIMED_OUT after timeoutMs. Records are validated by the log (magic v2, CRC, counts,
 * max.message.bytes, idempotent sequences). Transactional batches without a transactional id get
 * TRANSACTIONAL_ID_AUTHORIZATION_FAILED; the checks of each partition are {@link ProduceChecks}. Transactional batches
 * are first verified with (or, from v12, added to) the producer's transaction: {@link ProduceTransactionVerification}.
 */
final class ProduceHandler implements ApiHandler {

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
        if (data.transactionalId() == null && ProduceChecks.hasTransactionalRecords(request)) {
            // As Kafka's KafkaApis: transactional batches need a transactional id the principal may use.
            if (acks == 0) {
                request.closeConnection("acks=0 produce of transactional records without a transactional id");
            } else {
                request.respondWithError(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
            }
            return;
        }
        if (!ProduceTransactionVerification.verifyThen(request, broker, unverified -> append(request, broker, unverified))) {
            append(request, broker, Map.of());
        }
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
            String name = ProduceChecks.topicName(topicData, broker);
            for (ProduceRequestData.PartitionProduceData pd : topicData.partitionData()) {
                PartitionProduceResponse pr = new PartitionProduceResponse().setIndex(pd.index()).setBaseOffset(-1)
                        .setLogAppendTimeMs(-1).setLogStartOffset(-1);
                topicResponse.partitionResponses().add(pr);
                try {
                    TopicPartition tp = ProduceChecks.checkPartition(request, broker, topicData, name, pd);
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
}
