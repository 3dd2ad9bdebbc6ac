package dev.samsa.handler;

import dev.samsa.cluster.OffsetAndEpoch;
import dev.samsa.wire.KafkaRequest;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData.EpochEndOffset;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/**
 * OffsetForLeaderEpoch v2-4: the end offset of the largest leader epoch at or below the one asked, from the leader's
 * epoch cache, after checking the client's current leader epoch (KIP-320: how consumers detect truncation).
 */
final class OffsetForLeaderEpochHandler implements ApiHandler {

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.OFFSET_FOR_LEADER_EPOCH;
    }

    @Override
    public void handle(KafkaRequest request, BrokerContext broker) {
        OffsetForLeaderEpochRequestData data = request.data();
        OffsetForLeaderEpochResponseData response = new OffsetForLeaderEpochResponseData();
        // As Kafka: CLUSTER_ACTION (a follower's right) covers every topic; a consumer needs DESCRIBE on each (KIP-320).
        boolean clusterAction = broker.authorizedQuietly(request, AclOperation.CLUSTER_ACTION, ResourceType.CLUSTER,
                Acls.CLUSTER_NAME);
        for (OffsetForLeaderEpochRequestData.OffsetForLeaderTopic topic : data.topics()) {
            OffsetForLeaderTopicResult tr = new OffsetForLeaderTopicResult().setTopic(topic.topic());
            response.topics().add(tr);
            for (OffsetForLeaderEpochRequestData.OffsetForLeaderPartition p : topic.partitions()) {
                EpochEndOffset result = new EpochEndOffset().setPartition(p.partition()).setLeaderEpoch(-1).setEndOffset(-1);
                tr.partitions().add(result);
                try {
                    if (!clusterAction && !broker.authorized(request, AclOperation.DESCRIBE, ResourceType.TOPIC, topic.topic())) {
                        throw new TopicAuthorizationException(java.util.Set.of(topic.topic()));
                    }
                    OffsetAndEpoch found = broker.replicaManager().lastOffsetForLeaderEpoch(broker.brokerId(),
                            new TopicPartition(topic.topic(), p.partition()), p.currentLeaderEpoch(), p.leaderEpoch());
                    result.setLeaderEpoch(found.leaderEpoch()).setEndOffset(found.offset());
                } catch (ApiException e) {
                    result.setErrorCode(Errors.forException(e).code());
                }
            }
        }
        request.respond(response);
    }
}
