package dev.samsa.cluster;

import java.util.List;

/** The replicas asked for one partition of a new topic, as CreateTopics names them. */
public record ReplicaAssignment(int partition, List<Integer> brokerIds) {
}
