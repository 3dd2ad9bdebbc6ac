package dev.samsa.handler;

import dev.samsa.cluster.DelayedOperation;
import dev.samsa.cluster.Partition;
import dev.samsa.cluster.ReplicaManager;
import dev.samsa.cluster.Topic;
import dev.samsa.log.PartitionLog;
import dev.samsa.wire.KafkaRequest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.apache.kafka.common.errors.UnknownTopicIdException;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;

/**
 * Fetch v4-18 for consumers (followers replicate in-process). Long-polls: with less than minBytes available the
 * fetch is parked until an append brings enough or maxWaitMs passes (capped in wall time too). Reads whole batches
 * from the one containing the fetch offset, up to the high watermark, within the partition's and the request's
 * max bytes, always returning at least the first batch of the first partition with data so a large batch never
 * stalls a consumer. Sessions per {@link FetchSessionCache}. Rack-aware replica selection and diverging-epoch
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
        FetchSessionCache.Context context = broker.fetchSessions().newContext(body.metadata(), body.fetchData(topicNames),
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
        private final FetchSessionCache.Context context;
        private final BrokerContext broker;
        private LinkedHashMap<TopicIdPartition, FetchResponseData.PartitionData> result;

        DelayedFetch(KafkaRequest request, FetchRequest body, FetchSessionCache.Context context, BrokerContext broker) {
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
            return false;
        }

        @Override
        protected void onComplete() {
            LinkedHashMap<TopicIdPartition, FetchResponseData.PartitionData> read = result != null ? result : readAll();
            request.respond(FetchResponse.of(Errors.NONE, 0, context.sessionId, context.shape(read), List.of()).data());
        }

        private LinkedHashMap<TopicIdPartition, FetchResponseData.PartitionData> readAll() {
            LinkedHashMap<TopicIdPartition, FetchResponseData.PartitionData> out = new LinkedHashMap<>();
            int budget = body.maxBytes();
            boolean first = true;
            for (Map.Entry<TopicIdPartition, FetchRequest.PartitionData> e : context.toRead.entrySet()) {
                FetchResponseData.PartitionData data = read(e.getKey(), e.getValue(), Math.max(0, budget), first);
                int size = data.records() == null ? 0 : data.records().sizeInBytes();
                budget -= size;
                first &= size == 0;
                out.put(e.getKey(), data);
            }
            return out;
        }

        private FetchResponseData.PartitionData read(TopicIdPartition tp, FetchRequest.PartitionData pd, int budget, boolean minOneBatch) {
            FetchResponseData.PartitionData data = new FetchResponseData.PartitionData().setPartitionIndex(tp.partition())
                    .setHighWatermark(FetchResponse.INVALID_HIGH_WATERMARK)
                    .setLastStableOffset(FetchResponse.INVALID_LAST_STABLE_OFFSET)
                    .setLogStartOffset(FetchResponse.INVALID_LOG_START_OFFSET)
                    .setRecords(MemoryRecords.EMPTY);
            try {
                if (tp.topic() == null) {
                    throw new UnknownTopicIdException("Unknown topic id " + tp.topicId());
                }
                Partition partition = broker.replicaManager().leaderPartition(broker.brokerId(), tp.topicPartition());
                ReplicaManager.checkLeaderEpoch(partition, broker.brokerId(), pd.currentLeaderEpoch.orElse(-1));
                PartitionLog log = partition.log(broker.brokerId());
                long highWatermark = partition.highWatermarkSeenBy(broker.brokerId());
                data.setHighWatermark(highWatermark).setLastStableOffset(highWatermark).setLogStartOffset(log.logStartOffset());
                if (body.isolationLevel() == IsolationLevel.READ_COMMITTED) {
                    data.setAbortedTransactions(new ArrayList<>());
                }
                if (pd.fetchOffset < log.logStartOffset() || pd.fetchOffset > log.logEndOffset()) {
                    throw new OffsetOutOfRangeException("Fetch offset " + pd.fetchOffset + " is out of range for " + tp
                            + ": log start offset " + log.logStartOffset() + ", log end offset " + log.logEndOffset());
                }
                if (pd.fetchOffset < highWatermark) {
                    int max = Math.min(pd.maxBytes, budget);
                    data.setRecords(log.read(pd.fetchOffset, max, highWatermark, minOneBatch).records());
                }
            } catch (ApiException ex) {
                data.setErrorCode(Errors.forException(ex).code()).setRecords(MemoryRecords.EMPTY);
            }
            return data;
        }
    }
}
