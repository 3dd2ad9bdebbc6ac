package dev.samsa.handler;

import dev.samsa.cluster.Controller;
import dev.samsa.cluster.Partition;
import dev.samsa.cluster.Topic;
import dev.samsa.wire.KafkaRequest;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.message.ElectLeadersRequestData;
import org.apache.kafka.common.message.ElectLeadersResponseData;
import org.apache.kafka.common.message.ElectLeadersResponseData.PartitionResult;
import org.apache.kafka.common.message.ElectLeadersResponseData.ReplicaElectionResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * ElectLeaders v0-2, as KRaft's controller answers it (ReplicationControlManager.electLeaders). PREFERRED (v0 always)
 * moves the lead to the first replica if it is alive and in the ISR: ELECTION_NOT_NEEDED when it leads already,
 * PREFERRED_LEADER_NOT_AVAILABLE when it cannot lead. UNCLEAN (v1+) elects only for a partition without a leader,
 * from the ISR if a member is alive and else from any live replica, whatever unclean.leader.election.enable says:
 * ELECTION_NOT_NEEDED when it has a leader, ELIGIBLE_LEADERS_NOT_AVAILABLE when no replica is up. Null topic
 * partitions mean every partition of every topic, and then partitions that need no election are left out of the
 * answer. Unknown topics and partitions get UNKNOWN_TOPIC_OR_PARTITION; an unknown election type fails the request
 * with INVALID_REQUEST. Elections happen at once, so timeoutMs is not waited on.
 * Not implemented: authorization (CLUSTER_AUTHORIZATION_FAILED).
 */
final class ElectLeadersHandler implements ApiHandler {

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.ELECT_LEADERS;
    }

    @Override
    public void handle(KafkaRequest request, BrokerContext broker) {
        broker.requireCluster(request, AclOperation.ALTER);
        ElectLeadersRequestData data = request.data();
        ElectionType type;
        try {
            type = ElectionType.valueOf(data.electionType());
        } catch (IllegalArgumentException e) {
            request.respondWithError(new InvalidRequestException("Unknown election type " + (int) data.electionType()));
            return;
        }
        ElectLeadersResponseData response = new ElectLeadersResponseData().setErrorCode(Errors.NONE.code());
        if (data.topicPartitions() == null) {
            for (Topic topic : broker.cluster().metadata().topics()) {
                ReplicaElectionResult topicResult = new ReplicaElectionResult().setTopic(topic.name());
                response.replicaElectionResults().add(topicResult);
                for (Partition p : topic.partitions()) {
                    Errors error = elect(p, type, broker);
                    if (error != Errors.ELECTION_NOT_NEEDED) {
                        topicResult.partitionResult().add(result(p.index(), error, null));
                    }
                }
            }
        } else {
            for (ElectLeadersRequestData.TopicPartitions t : data.topicPartitions()) {
                ReplicaElectionResult topicResult = new ReplicaElectionResult().setTopic(t.topic());
                response.replicaElectionResults().add(topicResult);
                for (int index : t.partitions()) {
                    Partition p = broker.cluster().metadata().partition(new TopicPartition(t.topic(), index));
                    if (p == null) {
                        String message = broker.cluster().metadata().topic(t.topic()) == null
                                ? "No such topic as " + t.topic() : "No such partition as " + t.topic() + "-" + index;
                        topicResult.partitionResult().add(result(index, Errors.UNKNOWN_TOPIC_OR_PARTITION, message));
                    } else {
                        topicResult.partitionResult().add(result(index, elect(p, type, broker), null));
                    }
                }
            }
        }
        request.respond(response);
    }

    private static Errors elect(Partition partition, ElectionType type, BrokerContext broker) {
        Controller controller = broker.cluster().controller();
        Controller.ElectionResult result = type == ElectionType.PREFERRED
                ? controller.electPreferred(partition, "preferred leader election")
                : controller.electUnclean(partition, "unclean leader election");
        return switch (result) {
            case ELECTED -> Errors.NONE;
            case NOT_NEEDED -> Errors.ELECTION_NOT_NEEDED;
            case NO_ELIGIBLE_LEADER -> type == ElectionType.PREFERRED
                    ? Errors.PREFERRED_LEADER_NOT_AVAILABLE : Errors.ELIGIBLE_LEADERS_NOT_AVAILABLE;
        };
    }

    private static PartitionResult result(int index, Errors error, String message) {
        return new PartitionResult().setPartitionId(index).setErrorCode(error.code())
                .setErrorMessage(message != null ? KafkaRequest.fitErrorMessage(message) : error == Errors.NONE ? null : error.message());
    }
}
