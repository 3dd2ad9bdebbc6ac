package dev.samsa.group.modern.consumer;

import dev.samsa.group.modern.Assignment;
import java.util.List;

/**
 * A ConsumerGroupHeartbeat as the domain reads it; null fields were not sent (unchanged since the last one).
 *
 * @param memberEpoch 0 to join, -1 to leave, -2 for a static member to leave for a while
 * @param owned the partitions the member owns, or null when not sent
 * @param connection the client connection it came over, for the liveness rule
 */
public record HeartbeatRequest(String groupId, String memberId, int memberEpoch, String instanceId, String rackId,
                               int rebalanceTimeoutMs, List<String> subscribedTopicNames, String subscribedTopicRegex,
                               String serverAssignor, Assignment owned, String clientId, String connection) {

    public static final int JOIN = 0;
    public static final int LEAVE = -1;
    public static final int STATIC_LEAVE = -2;
}
