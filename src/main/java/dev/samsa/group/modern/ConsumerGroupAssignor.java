package dev.samsa.group.modern;

import java.util.Map;
import java.util.Set;
import java.util.SortedMap;

/**
 * A server-side assignor (KIP-848's {@code ConsumerGroupPartitionAssignor}): the target assignment of every member
 * from the subscriptions and the topics, deterministic for the same input. Named by {@code group.consumer.assignors}
 * and chosen by the client's {@code group.remote.assignor}.
 */
public interface ConsumerGroupAssignor {

    String name();

    /**
     * @param subscriptions each member's subscribed topics that exist, by member id
     * @param topics every subscribed topic, by id
     * @param current the previous target, so that a sticky assignor moves as little as it can
     * @return an assignment for every member of {@code subscriptions}
     */
    Map<String, Assignment> assign(SortedMap<String, Set<org.apache.kafka.common.Uuid>> subscriptions,
                                   Map<org.apache.kafka.common.Uuid, TopicMetadata> topics, Map<String, Assignment> current);
}
