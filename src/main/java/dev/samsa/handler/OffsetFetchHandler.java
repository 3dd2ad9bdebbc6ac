package dev.samsa.handler;

import dev.samsa.group.CommittedOffset;
import dev.samsa.wire.KafkaRequest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * OffsetFetch v1-9. v1-7: one group, topics null (v2+) for all committed offsets, a top-level error (v2+); v8+: several
 * groups in one request. A partition without a commit answers offset -1. v5+ leader epochs. requireStable (v7+) has no
 * pending transactional offsets to wait for until transactions exist. v9's member id and epoch concern KIP-848 groups
 * and are ignored. v10 (topic ids) is not served.
 */
final class OffsetFetchHandler implements ApiHandler {

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.OFFSET_FETCH;
    }

    @Override
    public void handle(KafkaRequest request, BrokerContext broker) {
        OffsetFetchRequestData data = request.data();
        OffsetFetchResponseData response = new OffsetFetchResponseData();
        if (request.version() < 8) {
            List<TopicPartition> wanted = null;
            if (data.topics() != null) {
                wanted = new ArrayList<>();
                for (OffsetFetchRequestData.OffsetFetchRequestTopic t : data.topics()) {
                    for (int p : t.partitionIndexes()) {
                        wanted.add(new TopicPartition(t.name(), p));
                    }
                }
            }
            Result r = fetch(broker, data.groupId(), wanted);
            short code = r.error.code();
            response.setErrorCode(code);
            r.offsets.forEach((topic, parts) -> {
                OffsetFetchResponseData.OffsetFetchResponseTopic rt = new OffsetFetchResponseData.OffsetFetchResponseTopic().setName(topic);
                response.topics().add(rt);
                parts.forEach((p, o) -> rt.partitions().add(new OffsetFetchResponseData.OffsetFetchResponsePartition()
                        .setPartitionIndex(p).setCommittedOffset(o == null ? -1 : o.offset())
                        .setCommittedLeaderEpoch(o == null ? -1 : o.leaderEpoch())
                        .setMetadata(o == null || o.metadata() == null ? "" : o.metadata())
                        .setErrorCode(request.version() < 2 ? code : 0)));
            });
        } else {
            for (OffsetFetchRequestData.OffsetFetchRequestGroup g : data.groups()) {
                List<TopicPartition> wanted = null;
                if (g.topics() != null) {
                    wanted = new ArrayList<>();
                    for (OffsetFetchRequestData.OffsetFetchRequestTopics t : g.topics()) {
                        for (int p : t.partitionIndexes()) {
                            wanted.add(new TopicPartition(t.name(), p));
                        }
                    }
                }
                Result r = fetch(broker, g.groupId(), wanted);
                OffsetFetchResponseData.OffsetFetchResponseGroup rg = new OffsetFetchResponseData.OffsetFetchResponseGroup()
                        .setGroupId(g.groupId()).setErrorCode(r.error.code());
                response.groups().add(rg);
                r.offsets.forEach((topic, parts) -> {
                    OffsetFetchResponseData.OffsetFetchResponseTopics rt = new OffsetFetchResponseData.OffsetFetchResponseTopics().setName(topic);
                    rg.topics().add(rt);
                    parts.forEach((p, o) -> rt.partitions().add(new OffsetFetchResponseData.OffsetFetchResponsePartitions()
                            .setPartitionIndex(p).setCommittedOffset(o == null ? -1 : o.offset())
                            .setCommittedLeaderEpoch(o == null ? -1 : o.leaderEpoch())
                            .setMetadata(o == null || o.metadata() == null ? "" : o.metadata())));
                });
            }
        }
        request.respond(response);
    }

    private record Result(Errors error, Map<String, Map<Integer, CommittedOffset>> offsets) {
    }

    /** Offsets by topic and partition; a requested partition without a commit maps to null. */
    private static Result fetch(BrokerContext broker, String groupId, List<TopicPartition> wanted) {
        Map<String, Map<Integer, CommittedOffset>> byTopic = new LinkedHashMap<>();
        Errors error = Errors.NONE;
        Map<TopicPartition, CommittedOffset> found = Map.of();
        try {
            found = broker.groups().offsets().fetch(broker.brokerId(), groupId, wanted);
        } catch (ApiException e) {
            error = Errors.forException(e);
            if (error == Errors.GROUP_ID_NOT_FOUND) {
                error = Errors.NONE;
            }
        }
        if (wanted != null) {
            for (TopicPartition tp : wanted) {
                byTopic.computeIfAbsent(tp.topic(), t -> new LinkedHashMap<>()).put(tp.partition(), found.get(tp));
            }
        } else {
            found.forEach((tp, o) -> byTopic.computeIfAbsent(tp.topic(), t -> new LinkedHashMap<>()).put(tp.partition(), o));
        }
        return new Result(error, byTopic);
    }
}
