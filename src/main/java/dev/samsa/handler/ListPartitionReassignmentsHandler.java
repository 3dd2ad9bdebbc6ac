package dev.samsa.handler;

import dev.samsa.cluster.Partition;
import dev.samsa.cluster.Reassignments;
import dev.samsa.cluster.Topic;
import dev.samsa.wire.KafkaRequest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.ListPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.ListPartitionReassignmentsResponseData;
import org.apache.kafka.common.message.ListPartitionReassignmentsResponseData.OngoingPartitionReassignment;
import org.apache.kafka.common.message.ListPartitionReassignmentsResponseData.OngoingTopicReassignment;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * ListPartitionReassignments v0, as KRaft's controller answers it (ReplicationControlManager.listPartitionReassignments):
 * each partition being reassigned with its replicas (the target followed by the replicas being removed), adding and
 * removing replicas. Null topics list every reassignment; named topics list those of the given partitions that are
 * being reassigned, and unknown topics or partitions are silently left out, as Kafka does.
 * Not implemented: authorization.
 */
final class ListPartitionReassignmentsHandler implements ApiHandler {

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.LIST_PARTITION_REASSIGNMENTS;
    }

    @Override
    public void handle(KafkaRequest request, BrokerContext broker) {
        broker.requireCluster(request, AclOperation.DESCRIBE);
        ListPartitionReassignmentsRequestData data = request.data();
        List<Partition> partitions = new ArrayList<>();
        if (data.topics() == null) {
            partitions.addAll(broker.cluster().reassignments().inProgress());
        } else {
            for (ListPartitionReassignmentsRequestData.ListPartitionReassignmentsTopics t : data.topics()) {
                Topic topic = broker.cluster().metadata().topic(t.name());
                if (topic == null) {
                    continue;
                }
                for (int index : t.partitionIndexes()) {
                    Partition p = topic.partition(index);
                    if (p != null && p.isReassigning()) {
                        partitions.add(p);
                    }
                }
            }
        }
        Map<String, OngoingTopicReassignment> topics = new LinkedHashMap<>();
        for (Partition p : partitions) {
            topics.computeIfAbsent(p.topic().name(), name -> new OngoingTopicReassignment().setName(name))
                    .partitions().add(new OngoingPartitionReassignment().setPartitionIndex(p.index())
                            .setReplicas(new ArrayList<>(p.replicas()))
                            .setAddingReplicas(new ArrayList<>(p.addingReplicas()))
                            .setRemovingReplicas(new ArrayList<>(p.removingReplicas())));
        }
        request.respond(new ListPartitionReassignmentsResponseData().setErrorCode(Errors.NONE.code()).setErrorMessage(null)
                .setTopics(new ArrayList<>(topics.values())));
    }
}
