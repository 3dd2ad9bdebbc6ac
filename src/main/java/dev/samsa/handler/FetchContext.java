package dev.samsa.handler;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FetchRequest;

/**
 * Kafka's FetchContext: what one fetch reads (all of a full fetch, the whole session for an incremental one) and how
 * its response is shaped.
 */
final class FetchContext {
    final Errors error;
    final int sessionId;
    final boolean incremental;
    final LinkedHashMap<TopicIdPartition, FetchRequest.PartitionData> toRead;
    private final Map<TopicIdPartition, CachedPartition> cached;

    FetchContext(Errors error, int sessionId, boolean incremental, LinkedHashMap<TopicIdPartition, FetchRequest.PartitionData> toRead,
                 Map<TopicIdPartition, CachedPartition> cached) {
        this.error = error;
        this.sessionId = sessionId;
        this.incremental = incremental;
        this.toRead = toRead;
        this.cached = cached;
    }

    /** Keeps what the client must see: every partition of a full fetch, only the news of an incremental one. */
    LinkedHashMap<TopicIdPartition, FetchResponseData.PartitionData> shape(
            LinkedHashMap<TopicIdPartition, FetchResponseData.PartitionData> read) {
        if (cached == null) {
            return read;
        }
        LinkedHashMap<TopicIdPartition, FetchResponseData.PartitionData> out = new LinkedHashMap<>();
        read.forEach((tp, data) -> {
            CachedPartition c = cached.get(tp);
            boolean must = c == null || c.mustRespond(data);
            if (!incremental || must) {
                out.put(tp, data);
            }
            if (incremental && c != null && data.records() != null && data.records().sizeInBytes() > 0) {
                // As Kafka does: a partition that just got data goes last, so no partition hogs the response.
                cached.remove(tp);
                cached.put(tp, c);
            }
        });
        return out;
    }

    /** What the session last told the client of one partition, to send it again only when it changed. */
    static final class CachedPartition {
        FetchRequest.PartitionData request;
        long highWatermark = -1;
        long lastStableOffset = -1;
        long logStartOffset = -1;

        CachedPartition(FetchRequest.PartitionData request) {
            this.request = request;
        }

        /** Whether an incremental response must carry this partition, remembering what it then tells the client. */
        boolean mustRespond(FetchResponseData.PartitionData data) {
            boolean changed = data.records() != null && data.records().sizeInBytes() > 0
                    || data.errorCode() != Errors.NONE.code()
                    || data.highWatermark() != highWatermark
                    || data.lastStableOffset() != lastStableOffset
                    || data.logStartOffset() != logStartOffset
                    || data.divergingEpoch().epoch() >= 0;
            highWatermark = data.highWatermark();
            lastStableOffset = data.lastStableOffset();
            logStartOffset = data.logStartOffset();
            return changed;
        }
    }
}
