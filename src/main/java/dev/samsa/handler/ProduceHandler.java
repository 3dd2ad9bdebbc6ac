package dev.samsa.handler;

import dev.samsa.cluster.LogAppendResult;
import dev.samsa.cluster.ProduceHistory;
import dev.samsa.cluster.RecordErrorsException;
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
import org.apache.kafka.common.message.ProduceResponseData.BatchIndexAndErrorMessage;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.message.ProduceResponseData.TopicProduceResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.resource.ResourceType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Produce v3-13 (v13 names topics by id). acks=0 gets no answer (an error closes the connection, as Kafka signals
 * it); acks=1 answers after the leader's append; acks=-1 is parked until the high watermark passes every appended
 * batch, or answers REQUEST_TIMED_OUT after timeoutMs. Records are validated by the log (magic v2, CRC, counts,
 * max.message.bytes, idempotent sequences); a batch refused record by record names each refused record (v8+ record_errors,
 * KIP-467). Transactional batches without a transactional id get
 * TRANSACTIONAL_ID_AUTHORIZATION_FAILED; the checks of each partition are {@link ProduceChecks}. Transactional batches
 * are first verified with (or, from v12, added to) the producer's transaction: {@link ProduceTransactionVerification}.
 * Null records in a partition Kafka would append to leave the request unanswered, as Kafka 4.4 leaves it
 * ({@link ProduceChecks#nullRecordsToAppend}).
 */
final class ProduceHandler implements ApiHandler {

    private static final Logger log = LoggerFactory.getLogger(ProduceHandler.class);

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
        TopicPartition nullRecords = ProduceChecks.nullRecordsToAppend(request, broker);
        if (nullRecords != null) {
            if (acks == 0) {
                request.closeConnection("acks=0 produce with null records for " + nullRecords);
            } else {
                log.warn("{} has null records for {}: left unanswered, as Kafka 4.4 leaves it (its append and its error"
                        + " answer both fail on them); the client waits out its request timeout", request, nullRecords);
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
                } catch (RecordErrorsException e) {
                    answerRecordErrors(pr, e);
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

    /**
     * KIP-467 as Kafka's ReplicaManager and ProduceResponse answer a batch refused record by record: each record's batch
     * index and reason, the partition error's message, and the log start offset (v8+ carry the first two). The messages
     * go uncut: Kafka builds them from a topic name and at most three reasons, well within the field.
     */
    private static void answerRecordErrors(PartitionProduceResponse pr, RecordErrorsException e) {
        pr.setErrorCode(Errors.forException(e.error()).code()).setErrorMessage(e.error().getMessage())
                .setLogStartOffset(e.logStartOffset());
        for (RecordErrorsException.RecordError error : e.recordErrors()) {
            pr.recordErrors().add(new BatchIndexAndErrorMessage().setBatchIndex(error.batchIndex())
                    .setBatchIndexErrorMessage(error.message()));
        }
    }
}
