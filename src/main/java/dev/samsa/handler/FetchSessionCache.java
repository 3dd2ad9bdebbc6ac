package dev.samsa.handler;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FetchMetadata;
import org.apache.kafka.common.requests.FetchRequest;

/**
 * Incremental fetch sessions (KIP-227) of one broker, as kafka-clients 4.x uses them: a full fetch with epoch 0
 * opens a session; later fetches send only changes and get back only partitions with news (records, a moved high
 * watermark or log start offset, an error); epoch -1 closes it. Least recently used sessions are evicted past
 * {@link #MAX_SESSIONS}. Owned by the cluster loop.
 */
public final class FetchSessionCache {

    static final int MAX_SESSIONS = 1000;

    private final Random random;
    private final LinkedHashMap<Integer, Session> sessions = new LinkedHashMap<>(16, 0.75f, true);

    public FetchSessionCache(Random random) {
        this.random = random;
    }

    static final class Cached {
        FetchRequest.PartitionData request;
        long highWatermark = -1;
        long lastStableOffset = -1;
        long logStartOffset = -1;

        Cached(FetchRequest.PartitionData request) {
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

    private static final class Session {
        final int id;
        int epoch;
        final LinkedHashMap<TopicIdPartition, Cached> partitions = new LinkedHashMap<>();

        Session(int id) {
            this.id = id;
        }
    }

    /** What one fetch reads and how its response is shaped. */
    public static final class Context {
        final Errors error;
        final int sessionId;
        final boolean incremental;
        final LinkedHashMap<TopicIdPartition, FetchRequest.PartitionData> toRead;
        private final Map<TopicIdPartition, Cached> cached;

        Context(Errors error, int sessionId, boolean incremental, LinkedHashMap<TopicIdPartition, FetchRequest.PartitionData> toRead,
                Map<TopicIdPartition, Cached> cached) {
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
                Cached c = cached.get(tp);
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
    }

    Context newContext(FetchMetadata metadata, Map<TopicIdPartition, FetchRequest.PartitionData> fetchData,
                       List<TopicIdPartition> forgotten) {
        if (metadata.isFull()) {
            if (metadata.sessionId() != FetchMetadata.INVALID_SESSION_ID) {
                sessions.remove(metadata.sessionId());
            }
            LinkedHashMap<TopicIdPartition, FetchRequest.PartitionData> toRead = new LinkedHashMap<>(fetchData);
            if (metadata.epoch() == FetchMetadata.FINAL_EPOCH) {
                return new Context(Errors.NONE, FetchMetadata.INVALID_SESSION_ID, false, toRead, null);
            }
            Session session = new Session(newSessionId());
            session.epoch = FetchMetadata.nextEpoch(FetchMetadata.INITIAL_EPOCH);
            toRead.forEach((tp, pd) -> session.partitions.put(tp, new Cached(pd)));
            sessions.put(session.id, session);
            evictIfFull();
            return new Context(Errors.NONE, session.id, false, toRead, session.partitions);
        }
        Session session = sessions.get(metadata.sessionId());
        if (session == null) {
            return new Context(Errors.FETCH_SESSION_ID_NOT_FOUND, FetchMetadata.INVALID_SESSION_ID, false, new LinkedHashMap<>(), null);
        }
        if (session.epoch != metadata.epoch()) {
            return new Context(Errors.INVALID_FETCH_SESSION_EPOCH, FetchMetadata.INVALID_SESSION_ID, false, new LinkedHashMap<>(), null);
        }
        for (TopicIdPartition tp : forgotten) {
            session.partitions.remove(tp);
        }
        fetchData.forEach((tp, pd) -> {
            Cached c = session.partitions.get(tp);
            if (c == null) {
                session.partitions.put(tp, new Cached(pd));
            } else {
                c.request = pd;
            }
        });
        if (session.partitions.isEmpty()) {
            // Kafka closes a session left with nothing to fetch and answers as a sessionless fetch.
            sessions.remove(session.id);
            return new Context(Errors.NONE, FetchMetadata.INVALID_SESSION_ID, false, new LinkedHashMap<>(), null);
        }
        session.epoch = FetchMetadata.nextEpoch(session.epoch);
        LinkedHashMap<TopicIdPartition, FetchRequest.PartitionData> toRead = new LinkedHashMap<>();
        session.partitions.forEach((tp, c) -> toRead.put(tp, c.request));
        return new Context(Errors.NONE, session.id, true, toRead, session.partitions);
    }

    private int newSessionId() {
        int id;
        do {
            id = random.nextInt(Integer.MAX_VALUE);
        } while (id == FetchMetadata.INVALID_SESSION_ID || sessions.containsKey(id));
        return id;
    }

    private void evictIfFull() {
        Iterator<Integer> oldest = sessions.keySet().iterator();
        while (sessions.size() > MAX_SESSIONS && oldest.hasNext()) {
            oldest.next();
            oldest.remove();
        }
    }

    int size() {
        return sessions.size();
    }
}
