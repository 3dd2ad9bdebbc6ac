package dev.samsa.handler;

import dev.samsa.cluster.DelayedOperation;
import dev.samsa.cluster.LogReadResult;
import dev.samsa.cluster.PartitionFetchInfo;
import dev.samsa.cluster.Topic;
import dev.samsa.wire.KafkaRequest;
import dev.samsa.wire.RequestCodec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.resource.ResourceType;

/**
 * Fetch v4-18 for consumers (followers replicate in-process). Long-polls: with less than minBytes available the
 * fetch is parked until an append brings enough or maxWaitMs passes (capped in wall time too). Reads whole batches
 * from the one containing the fetch offset, up to the high watermark (read_committed: up to the last stable offset,
 * with the aborted transactions overlapping what it returns; read_uncommitted gets null for those, as from Kafka),
 * within the partition's and the request's max bytes, always returning at least the first batch of the first
 * partition with data so a large batch never stalls a consumer. The records are the leader's segment bytes seen in
 * place, which the connection sends without a copy and then releases. Sessions per {@link FetchSessionCache}. Rack-aware replica selection and diverging-epoch
 * detection for followers are not implemented.
 */
final class FetchHandler implements ApiHandler {

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.FETCH;
    }

    @Override
    public void handle(KafkaRequest request, BrokerContext broker) {
        FetchRequest body = (FetchRequest) request.body();
        IsolationLevels.throwIfUnknown(body.data().isolationLevel());
        Map<Uuid, String> topicNames = new HashMap<>();
        for (Topic t : broker.cluster().metadata().topics()) {
            topicNames.put(t.id(), t.name());
        }
        FetchContext context = broker.fetchSessions().newContext(body.metadata(), body.fetchData(topicNames),
                body.forgottenTopics(topicNames));
        if (context.error != Errors.NONE) {
            request.respond(FetchResponse.of(context.error, 0, 0,
                    new LinkedHashMap<>(), List.of()).data());
            return;
        }
        DelayedFetch fetch = new DelayedFetch(request, body, context, broker);
        if (body.maxWait() <= 0 || context.toRead.isEmpty()) {
            fetch.forceComplete();
            return;
        }
        List<TopicPartition> keys = new ArrayList<>();
        context.toRead.keySet().forEach(tp -> {
            if (tp.topic() != null) {
                keys.add(tp.topicPartition());
            }
        });
        broker.cluster().purgatory().tryCompleteElseWatch(fetch, keys, body.maxWait(), "fetch");
    }

    private static final class DelayedFetch extends DelayedOperation {
        private final KafkaRequest request;
        private final FetchRequest body;
        private final FetchContext context;
        private final BrokerContext broker;
        private LinkedHashMap<TopicIdPartition, FetchResponseData.PartitionData> result;

        DelayedFetch(KafkaRequest request, FetchRequest body, FetchContext context, BrokerContext broker) {
            this.request = request;
            this.body = body;
            this.context = context;
            this.broker = broker;
        }

        @Override
        public boolean tryComplete() {
            LinkedHashMap<TopicIdPartition, FetchResponseData.PartitionData> read = readAll();
            long bytes = 0;
            boolean error = false;
            for (FetchResponseData.PartitionData d : read.values()) {
                bytes += d.records() == null ? 0 : d.records().sizeInBytes();
                error |= d.errorCode() != Errors.NONE.code();
            }
            if (bytes >= body.minBytes() || error) {
                result = read;
                return forceComplete();
            }
            // Not enough yet: what was read is dropped, and with it the segment views it held.
            read.values().forEach(d -> RequestCodec.releaseRecords(d.records()));
            return false;
        }

        @Override
        protected void onComplete() {
            LinkedHashMap<TopicIdPartition, FetchResponseData.PartitionData> read = result != null ? result : readAll();
            recordDeliveries(read);
            request.respond(FetchResponse.of(Errors.NONE, 0, context.sessionId, context.shape(read), List.of()).data());
        }

        /** For the history check: the records each partition sends, from the offset asked for (a batch may start before). */
        private void recordDeliveries(Map<TopicIdPartition, FetchResponseData.PartitionData> read) {
            read.forEach((tp, d) -> {
                if (d.errorCode() != Errors.NONE.code() || d.records() == null || d.records().sizeInBytes() == 0) {
                    return;
                }
                long last = ((org.apache.kafka.common.record.internal.Records) d.records()).lastBatch().orElseThrow().lastOffset();
                long from = context.toRead.get(tp).fetchOffset;
                if (last >= from) {
                    broker.cluster().consumerHistory().delivered(request.clientId(), tp.topicPartition(), from, last,
                            broker.cluster().nowMs());
                }
            });
        }

        private LinkedHashMap<TopicIdPartition, FetchResponseData.PartitionData> readAll() {
            Map<TopicIdPartition, PartitionFetchInfo> fetches = new LinkedHashMap<>();
            LinkedHashMap<TopicIdPartition, FetchResponseData.PartitionData> out = new LinkedHashMap<>();
            context.toRead.forEach((tp, pd) -> {
                if (tp.topic() != null && !broker.authorized(request, AclOperation.READ, ResourceType.TOPIC, tp.topic())) {
                    out.put(tp, FetchResponse.partitionResponse(tp, Errors.TOPIC_AUTHORIZATION_FAILED));
                } else {
                    fetches.put(tp, new PartitionFetchInfo(pd.fetchOffset, pd.currentLeaderEpoch.orElse(-1), pd.maxBytes));
                }
            });
            broker.replicaManager().readFromLog(broker.brokerId(), fetches, body.maxBytes(), body.isolationLevel())
                    .forEach((tp, read) -> out.put(tp, partitionData(tp, read)));
            return out;
        }

        private FetchResponseData.PartitionData partitionData(TopicIdPartition tp, LogReadResult read) {
            FetchResponseData.PartitionData data = new FetchResponseData.PartitionData().setPartitionIndex(tp.partition())
                    .setErrorCode(read.error().code())
                    .setHighWatermark(read.highWatermark())
                    .setLastStableOffset(read.lastStableOffset())
                    .setLogStartOffset(read.logStartOffset())
                    .setRecords(read.records());
            // Null unless read_committed read the partition, as Kafka sends it (the field's default is an empty list).
            List<FetchResponseData.AbortedTransaction> aborted = null;
            if (read.abortedTransactions() != null) {
                aborted = new ArrayList<>();
                for (LogReadResult.AbortedTransaction txn : read.abortedTransactions()) {
                    aborted.add(new FetchResponseData.AbortedTransaction().setProducerId(txn.producerId())
                            .setFirstOffset(txn.firstOffset()));
                }
            }
            return data.setAbortedTransactions(aborted);
        }
    }
}
