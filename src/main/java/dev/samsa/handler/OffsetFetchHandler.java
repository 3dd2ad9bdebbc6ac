package dev.samsa.handler;

import dev.samsa.cluster.Topic;
import dev.samsa.group.CommittedOffset;
import dev.samsa.group.OffsetStore;
import dev.samsa.wire.KafkaRequest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/**
 * OffsetFetch v1-10. v1-7: one group, topics null (v2+) for all committed offsets, a top-level error (v2+); v8+: several
 * groups in one request. A partition without a commit answers offset -1. v5+ leader epochs. requireStable (v7+,
 * KIP-447; the consumer sets it for every fetch of its committed offsets): a partition that an open transaction has
 * committed an offset of answers UNSTABLE_OFFSET_COMMIT with offset -1, as Kafka answers it (per partition, the
 * group's error stays NONE), and the client retries. v9: a member of a KIP-848 consumer group gives its id and epoch
 * (UNKNOWN_MEMBER_ID, STALE_MEMBER_EPOCH for the group), as Kafka checks them.
 * v10 names topics by id instead of name (KIP-848), asked and answered: an id no topic has answers UNKNOWN_TOPIC_ID
 * for its partitions, and an all-topics answer leaves out the offsets of topics that no longer exist, as Kafka's.
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
        if (request.version() < 8 && !broker.authorized(request, AclOperation.DESCRIBE, ResourceType.GROUP, data.groupId())) {
            request.respond(groupAuthorizationFailed(data, request.version()));
            return;
        }
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
            Result r = describable(fetch(broker, data.groupId(), wanted, data.requireStable()), wanted == null, request, broker);
            short code = r.error.code();
            response.setErrorCode(code);
            r.offsets.forEach((topic, parts) -> {
                OffsetFetchResponseData.OffsetFetchResponseTopic rt = new OffsetFetchResponseData.OffsetFetchResponseTopic().setName(topic);
                response.topics().add(rt);
                parts.forEach((p, a) -> rt.partitions().add(new OffsetFetchResponseData.OffsetFetchResponsePartition()
                        .setPartitionIndex(p).setCommittedOffset(a.offset()).setCommittedLeaderEpoch(a.leaderEpoch())
                        .setMetadata(a.metadata()).setErrorCode(request.version() < 2 ? code : a.error().code())));
            });
        } else {
            boolean byId = request.version() >= 10;
            for (OffsetFetchRequestData.OffsetFetchRequestGroup g : data.groups()) {
                List<TopicPartition> wanted = null;
                List<OffsetFetchRequestData.OffsetFetchRequestTopics> unknownIds = new ArrayList<>();
                if (g.topics() != null) {
                    wanted = new ArrayList<>();
                    for (OffsetFetchRequestData.OffsetFetchRequestTopics t : g.topics()) {
                        Topic known = byId ? broker.cluster().metadata().topic(t.topicId()) : null;
                        if (byId && known == null) {
                            unknownIds.add(t);
                            continue;
                        }
                        for (int p : t.partitionIndexes()) {
                            wanted.add(new TopicPartition(byId ? known.name() : t.name(), p));
                        }
                    }
                }
                Result r;
                try {
                    broker.requireGroup(request, AclOperation.DESCRIBE, g.groupId());
                    if (request.version() >= 9) {
                        broker.groups().throwIfOffsetFetchIsInvalid(broker.brokerId(), g.groupId(), g.memberId(), g.memberEpoch());
                    }
                    r = describable(fetch(broker, g.groupId(), wanted, data.requireStable()), wanted == null, request, broker);
                } catch (ApiException e) {
                    r = new Result(Errors.forException(e), Map.of());
                }
                OffsetFetchResponseData.OffsetFetchResponseGroup rg = new OffsetFetchResponseData.OffsetFetchResponseGroup()
                        .setGroupId(g.groupId()).setErrorCode(r.error.code());
                response.groups().add(rg);
                r.offsets.forEach((topic, parts) -> {
                    Topic known = broker.cluster().metadata().topic(topic);
                    if (byId && known == null) {
                        return; // a committed offset of a deleted topic has no id to be named by
                    }
                    OffsetFetchResponseData.OffsetFetchResponseTopics rt = new OffsetFetchResponseData.OffsetFetchResponseTopics().setName(topic);
                    if (byId) {
                        rt.setTopicId(known.id());
                    }
                    rg.topics().add(rt);
                    parts.forEach((p, a) -> rt.partitions().add(partition(p, a)));
                });
                if (r.error == Errors.NONE) {
                    for (OffsetFetchRequestData.OffsetFetchRequestTopics t : unknownIds) {
                        OffsetFetchResponseData.OffsetFetchResponseTopics rt =
                                new OffsetFetchResponseData.OffsetFetchResponseTopics().setTopicId(t.topicId());
                        rg.topics().add(rt);
                        t.partitionIndexes().forEach(p -> rt.partitions().add(partition(p, Answer.UNKNOWN_TOPIC_ID)));
                    }
                }
            }
        }
        request.respond(response);
    }

    private static OffsetFetchResponseData.OffsetFetchResponsePartitions partition(int index, Answer a) {
        return new OffsetFetchResponseData.OffsetFetchResponsePartitions().setPartitionIndex(index)
                .setCommittedOffset(a.offset()).setCommittedLeaderEpoch(a.leaderEpoch()).setMetadata(a.metadata())
                .setErrorCode(a.error().code());
    }

    /**
     * Kafka's OffsetFetchResponse.groupError for one group: the top-level error from v2, and before it the error on
     * every partition asked for, with offset -1.
     */
    private static OffsetFetchResponseData groupAuthorizationFailed(OffsetFetchRequestData data, short version) {
        OffsetFetchResponseData response = new OffsetFetchResponseData();
        if (version >= 2) {
            return response.setErrorCode(Errors.GROUP_AUTHORIZATION_FAILED.code());
        }
        for (OffsetFetchRequestData.OffsetFetchRequestTopic t : data.topics()) {
            OffsetFetchResponseData.OffsetFetchResponseTopic rt = new OffsetFetchResponseData.OffsetFetchResponseTopic().setName(t.name());
            response.topics().add(rt);
            t.partitionIndexes().forEach(p -> rt.partitions().add(new OffsetFetchResponseData.OffsetFetchResponsePartition()
                    .setPartitionIndex(p).setCommittedOffset(-1).setCommittedLeaderEpoch(-1).setMetadata("")
                    .setErrorCode(Errors.GROUP_AUTHORIZATION_FAILED.code())));
        }
        return response;
    }

    /**
     * As Kafka: offsets of topics the principal may not DESCRIBE are left out of an all-topics answer, and answered
     * TOPIC_AUTHORIZATION_FAILED when asked for by name.
     */
    private static Result describable(Result r, boolean allTopics, KafkaRequest request, BrokerContext broker) {
        Map<String, Map<Integer, Answer>> offsets = new LinkedHashMap<>();
        r.offsets.forEach((topic, parts) -> {
            boolean describable = allTopics
                    ? broker.authorizedQuietly(request, AclOperation.DESCRIBE, ResourceType.TOPIC, topic)
                    : broker.authorized(request, AclOperation.DESCRIBE, ResourceType.TOPIC, topic);
            if (describable) {
                offsets.put(topic, parts);
            } else if (!allTopics) {
                Map<Integer, Answer> refused = new LinkedHashMap<>();
                parts.keySet().forEach(p -> refused.put(p, Answer.TOPIC_REFUSED));
                offsets.put(topic, refused);
            }
        });
        return new Result(r.error, offsets);
    }

    /** One partition's answer: offset -1, epoch -1 and metadata "" when there is no commit to show. */
    private record Answer(long offset, int leaderEpoch, String metadata, Errors error) {

        static final Answer NONE = new Answer(-1, -1, "", Errors.NONE);
        static final Answer UNSTABLE = new Answer(-1, -1, "", Errors.UNSTABLE_OFFSET_COMMIT);
        static final Answer TOPIC_REFUSED = new Answer(-1, -1, "", Errors.TOPIC_AUTHORIZATION_FAILED);
        static final Answer UNKNOWN_TOPIC_ID = new Answer(-1, -1, "", Errors.UNKNOWN_TOPIC_ID);

        static Answer of(CommittedOffset o) {
            return o == null ? NONE : new Answer(o.offset(), o.leaderEpoch(), o.metadata() == null ? "" : o.metadata(), Errors.NONE);
        }
    }

    private record Result(Errors error, Map<String, Map<Integer, Answer>> offsets) {
    }

    /** Answers by topic and partition: every requested partition, or every committed one when none is named. */
    private static Result fetch(BrokerContext broker, String groupId, List<TopicPartition> wanted, boolean requireStable) {
        Map<String, Map<Integer, Answer>> byTopic = new LinkedHashMap<>();
        Errors error = Errors.NONE;
        OffsetStore.Fetched found = new OffsetStore.Fetched(Map.of(), Set.of());
        try {
            found = broker.groups().offsets().fetch(broker.brokerId(), groupId, wanted, requireStable);
        } catch (ApiException e) {
            error = Errors.forException(e);
            if (error == Errors.GROUP_ID_NOT_FOUND) {
                error = Errors.NONE;
            }
        }
        List<TopicPartition> answered = new ArrayList<>();
        if (wanted != null) {
            answered.addAll(wanted);
        } else {
            answered.addAll(found.offsets().keySet());
            answered.addAll(found.unstable());
        }
        for (TopicPartition tp : answered) {
            Answer a = found.unstable().contains(tp) ? Answer.UNSTABLE : Answer.of(found.offsets().get(tp));
            byTopic.computeIfAbsent(tp.topic(), t -> new LinkedHashMap<>()).put(tp.partition(), a);
        }
        return new Result(error, byTopic);
    }
}
