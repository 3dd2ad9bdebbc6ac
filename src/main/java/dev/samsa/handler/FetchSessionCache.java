package dev.samsa.handler;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.common.TopicIdPartition;
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

    private static final class Session {
        final int id;
        int epoch;
        final LinkedHashMap<TopicIdPartition, FetchContext.CachedPartition> partitions = new LinkedHashMap<>();

        Session(int id) {
            this.id = id;
        }
    }

    FetchContext newContext(FetchMetadata metadata, Map<TopicIdPartition, FetchRequest.PartitionData> fetchData,
                       List<TopicIdPartition> forgotten) {
        if (metadata.isFull()) {
            if (metadata.sessionId() != FetchMetadata.INVALID_SESSION_ID) {
                sessions.remove(metadata.sessionId());
            }
            LinkedHashMap<TopicIdPartition, FetchRequest.PartitionData> toRead = new LinkedHashMap<>(fetchData);
            if (metadata.epoch() == FetchMetadata.FINAL_EPOCH) {
                return new FetchContext(Errors.NONE, FetchMetadata.INVALID_SESSION_ID, false, toRead, null);
            }
            Session session = new Session(newSessionId());
            session.epoch = FetchMetadata.nextEpoch(FetchMetadata.INITIAL_EPOCH);
            toRead.forEach((tp, pd) -> session.partitions.put(tp, new FetchContext.CachedPartition(pd)));
            sessions.put(session.id, session);
            evictIfFull();
            return new FetchContext(Errors.NONE, session.id, false, toRead, session.partitions);
        }
        Session session = sessions.get(metadata.sessionId());
        if (session == null) {
            return new FetchContext(Errors.FETCH_SESSION_ID_NOT_FOUND, FetchMetadata.INVALID_SESSION_ID, false, new LinkedHashMap<>(), null);
        }
        if (session.epoch != metadata.epoch()) {
            return new FetchContext(Errors.INVALID_FETCH_SESSION_EPOCH, FetchMetadata.INVALID_SESSION_ID, false, new LinkedHashMap<>(), null);
        }
        for (TopicIdPartition tp : forgotten) {
            session.partitions.remove(tp);
        }
        fetchData.forEach((tp, pd) -> {
            FetchContext.CachedPartition c = session.partitions.get(tp);
            if (c == null) {
                session.partitions.put(tp, new FetchContext.CachedPartition(pd));
            } else {
                c.request = pd;
            }
        });
        if (session.partitions.isEmpty()) {
            // Kafka closes a session left with nothing to fetch and answers as a sessionless fetch.
            sessions.remove(session.id);
            return new FetchContext(Errors.NONE, FetchMetadata.INVALID_SESSION_ID, false, new LinkedHashMap<>(), null);
        }
        session.epoch = FetchMetadata.nextEpoch(session.epoch);
        LinkedHashMap<TopicIdPartition, FetchRequest.PartitionData> toRead = new LinkedHashMap<>();
        session.partitions.forEach((tp, c) -> toRead.put(tp, c.request));
        return new FetchContext(Errors.NONE, session.id, true, toRead, session.partitions);
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
