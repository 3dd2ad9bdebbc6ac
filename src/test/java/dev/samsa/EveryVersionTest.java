package dev.samsa;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import org.apache.kafka.clients.admin.Admin;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.RequestUtils;
import org.junit.jupiter.api.Test;

/**
 * Every API the broker advertises, at every version it advertises, gets an answer that the client can read. The
 * generated message classes refuse to write a field at a version that lacks it, so a handler that sets one (a leader
 * epoch in a ListOffsets v2 answer, say) would close the connection of any client using that version: librdkafka
 * uses such versions. Requests carry a real topic where the success path is what matters.
 */
class EveryVersionTest {

    private static final String TOPIC = "versions";

    @Test
    void everyAdvertisedVersionIsAnsweredAndReadable() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().seed(41).topic(TOPIC, 1, 1).start()) {
            Uuid topicId;
            try (Admin admin = Admin.create(cluster.adminConfig())) {
                topicId = admin.describeTopics(List.of(TOPIC)).allTopicNames().get().get(TOPIC).topicId();
            }
            List<ApiVersion> advertised;
            try (RawConnection c = RawConnection.connect(cluster.broker(1))) {
                ApiVersionsResponse response = c.send(new ApiVersionsRequest.Builder().build(ApiKeys.API_VERSIONS.latestVersion()));
                advertised = new ArrayList<>(response.data().apiKeys());
            }
            try (RawConnection c = RawConnection.connect(cluster.broker(1))) {
                // The first coordinator lookup creates __consumer_offsets, so group requests below take their success path.
                c.send(new org.apache.kafka.common.requests.FindCoordinatorRequest.Builder(
                        new FindCoordinatorRequestData().setKey("warm-up")).build((short) 3));
            }
            List<String> failures = new ArrayList<>();
            int answered = 0;
            for (ApiVersion api : advertised) {
                ApiKeys key = ApiKeys.forId(api.apiKey());
                for (short v = api.minVersion(); v <= api.maxVersion(); v++) {
                    ApiMessage request = request(key, v, topicId);
                    try (RawConnection c = RawConnection.connect(cluster.broker(1))) {
                        RequestHeader header = c.nextHeader(key, v);
                        ByteBuffer frame = RequestUtils.serialize(header.data(), header.headerVersion(), request, v);
                        c.writeFrame(frame);
                        org.apache.kafka.common.requests.AbstractResponse response = c.receive(header);
                        if (response instanceof org.apache.kafka.common.requests.OffsetFetchResponse fetched) {
                            String groupId = "commit-" + Math.max(2, Math.min(v, 10));
                            var found = fetched.group(groupId).topics().stream().flatMap(t -> t.partitions().stream())
                                    .filter(pd -> pd.partitionIndex() == 0).findFirst();
                            if (found.isEmpty() || found.get().committedOffset() != 0 || !"m".equals(found.get().metadata())) {
                                failures.add(key + " v" + v + ": committed offset not read back: " + fetched.data());
                            }
                        }
                        answered++;
                    } catch (IOException | RuntimeException e) {
                        failures.add(key + " v" + v + ": " + e);
                    }
                }
            }
            assertThat(failures).as("requests without a readable answer").isEmpty();
            assertThat(answered).as("requests answered").isGreaterThan(150);
        }
    }

    /** A request worth answering at version {@code v}: with the topic for the APIs whose success path matters. */
    private static ApiMessage request(ApiKeys key, short v, Uuid topicId) {
        switch (key) {
            case METADATA:
                return new MetadataRequestData().setTopics(List.of(new MetadataRequestData.MetadataRequestTopic().setName(TOPIC)));
            case LIST_OFFSETS:
                ListOffsetsRequestData listOffsets = new ListOffsetsRequestData().setReplicaId(-1);
                listOffsets.topics().add(new ListOffsetsRequestData.ListOffsetsTopic().setName(TOPIC).setPartitions(List.of(
                        new ListOffsetsRequestData.ListOffsetsPartition().setPartitionIndex(0).setTimestamp(-2))));
                return listOffsets;
            case FETCH:
                FetchRequestData fetch = new FetchRequestData().setMaxWaitMs(0).setMinBytes(0).setMaxBytes(1 << 20)
                        .setSessionEpoch(-1);
                fetch.topics().add(new FetchRequestData.FetchTopic().setTopic(v < 13 ? TOPIC : "").setTopicId(v >= 13 ? topicId : Uuid.ZERO_UUID)
                        .setPartitions(List.of(new FetchRequestData.FetchPartition().setPartition(0).setFetchOffset(0)
                                .setPartitionMaxBytes(1 << 20))));
                return fetch;
            case PRODUCE:
                ProduceRequestData produce = new ProduceRequestData().setAcks((short) 1).setTimeoutMs(5000);
                produce.topicData().add(new ProduceRequestData.TopicProduceData().setName(v < 13 ? TOPIC : "")
                        .setTopicId(v >= 13 ? topicId : Uuid.ZERO_UUID)
                        .setPartitionData(List.of(new ProduceRequestData.PartitionProduceData().setIndex(0)
                                .setRecords(MemoryRecords.withRecords(Compression.NONE, new SimpleRecord("k".getBytes(), ("v" + v).getBytes()))))));
                return produce;
            case OFFSET_FOR_LEADER_EPOCH:
                OffsetForLeaderEpochRequestData epochs = new OffsetForLeaderEpochRequestData().setReplicaId(-1);
                epochs.topics().add(new OffsetForLeaderEpochRequestData.OffsetForLeaderTopic().setTopic(TOPIC).setPartitions(List.of(
                        new OffsetForLeaderEpochRequestData.OffsetForLeaderPartition().setPartition(0).setLeaderEpoch(0))));
                return epochs;
            case DESCRIBE_ACLS:
                // The filter must be valid to be decoded at all (Kafka, too, refuses UNKNOWN resource types).
                return new org.apache.kafka.common.message.DescribeAclsRequestData().setResourceTypeFilter((byte) 1)
                        .setPatternTypeFilter((byte) 1).setOperation((byte) 1).setPermissionType((byte) 1);
            case FIND_COORDINATOR:
                return v < 4 ? new FindCoordinatorRequestData().setKey("group-" + v)
                        : new FindCoordinatorRequestData().setCoordinatorKeys(List.of("group-" + v));
            case DESCRIBE_CONFIGS:
                return new DescribeConfigsRequestData().setResources(List.of(new DescribeConfigsRequestData.DescribeConfigsResource()
                        .setResourceType((byte) 2).setResourceName(TOPIC)));
            case JOIN_GROUP:
                // A fresh group per version: v0-3 join at once (the leader gets the members), v4+ first learn their id.
                return new JoinGroupRequestData().setGroupId("join-" + v).setSessionTimeoutMs(10_000).setRebalanceTimeoutMs(10_000)
                        .setMemberId("").setProtocolType("consumer")
                        .setProtocols(new JoinGroupRequestData.JoinGroupRequestProtocolCollection(List.of(
                                new JoinGroupRequestData.JoinGroupRequestProtocol().setName("range").setMetadata(new byte[0])).iterator()));
            case OFFSET_COMMIT:
                // A simple (group-less) commit: the success path of every version.
                OffsetCommitRequestData commit = new OffsetCommitRequestData().setGroupId("commit-" + v).setMemberId("")
                        .setGenerationIdOrMemberEpoch(-1);
                commit.topics().add(new OffsetCommitRequestData.OffsetCommitRequestTopic().setName(v < 10 ? TOPIC : "")
                        .setTopicId(v >= 10 ? topicId : Uuid.ZERO_UUID).setPartitions(List.of(
                        new OffsetCommitRequestData.OffsetCommitRequestPartition().setPartitionIndex(0).setCommittedOffset(0)
                                .setCommittedMetadata("m"))));
                return commit;
            case OFFSET_FETCH:
                // Reads what OFFSET_COMMIT of the same version stored (the APIs' versions are walked in key order).
                String committedBy = "commit-" + Math.max(2, Math.min(v, 10)); // OffsetCommit is served from v2
                if (v < 8) {
                    return new OffsetFetchRequestData().setGroupId(committedBy).setTopics(List.of(
                            new OffsetFetchRequestData.OffsetFetchRequestTopic().setName(TOPIC).setPartitionIndexes(List.of(0))));
                }
                return new OffsetFetchRequestData().setGroups(List.of(new OffsetFetchRequestData.OffsetFetchRequestGroup()
                        .setGroupId(committedBy).setTopics(List.of(new OffsetFetchRequestData.OffsetFetchRequestTopics()
                                .setName(v < 10 ? TOPIC : "").setTopicId(v >= 10 ? topicId : Uuid.ZERO_UUID)
                                .setPartitionIndexes(List.of(0))))));
            case CREATE_TOPICS:
                CreateTopicsRequestData create = new CreateTopicsRequestData().setValidateOnly(true).setTimeoutMs(5000);
                create.topics().add(new CreateTopicsRequestData.CreatableTopic().setName("created-" + v).setNumPartitions(1)
                        .setReplicationFactor((short) 1));
                return create;
            default:
                return key.messageType.newRequest();
        }
    }
}
