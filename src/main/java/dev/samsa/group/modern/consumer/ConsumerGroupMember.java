package dev.samsa.group.modern.consumer;

import dev.samsa.group.modern.Assignment;
import dev.samsa.group.modern.MemberState;
import java.util.List;

/**
 * One member of a consumer group, as Kafka's {@code ConsumerGroupMember}: what it subscribes to, its epoch and the
 * epoch before (a heartbeat whose answer was lost may come with the previous one), where it stands in reconciliation,
 * the partitions it is assigned and those it must still revoke. Immutable; the group replaces it.
 *
 * @param subscribedTopicNames sorted, empty when it subscribes by regex only
 * @param subscribedTopicRegex null when it subscribes by names
 * @param serverAssignor the assignor it asked for ({@code group.remote.assignor}), or null
 */
public record ConsumerGroupMember(String memberId, String instanceId, String rackId, String clientId, String clientHost,
                                  List<String> subscribedTopicNames, String subscribedTopicRegex, String serverAssignor,
                                  int rebalanceTimeoutMs, int memberEpoch, int previousMemberEpoch, MemberState state,
                                  Assignment assignedPartitions, Assignment partitionsPendingRevocation) {

    public ConsumerGroupMember {
        subscribedTopicNames = List.copyOf(subscribedTopicNames);
    }

    /** A member that has just joined: epoch 0, nothing assigned. */
    static ConsumerGroupMember joining(String memberId, String instanceId) {
        return new ConsumerGroupMember(memberId, instanceId, null, "", "", List.of(), null, null, -1, 0, 0,
                MemberState.STABLE, Assignment.EMPTY, Assignment.EMPTY);
    }

    /** What a heartbeat says of the member; null fields were not sent and keep their value. */
    ConsumerGroupMember withRequest(String rackId, int rebalanceTimeoutMs, List<String> topicNames, String topicRegex,
                                    String assignor, String clientId, String clientHost) {
        return new ConsumerGroupMember(memberId, instanceId, rackId != null ? rackId : this.rackId, clientId, clientHost,
                topicNames != null ? topicNames.stream().sorted().distinct().toList() : subscribedTopicNames,
                topicRegex != null ? (topicRegex.isEmpty() ? null : topicRegex) : subscribedTopicRegex,
                assignor != null ? assignor : serverAssignor,
                rebalanceTimeoutMs != -1 ? rebalanceTimeoutMs : this.rebalanceTimeoutMs, memberEpoch, previousMemberEpoch,
                state, assignedPartitions, partitionsPendingRevocation);
    }

    /** The next step of reconciliation; moving to another epoch remembers this one as the previous. */
    ConsumerGroupMember withReconciliation(MemberState newState, int newEpoch, Assignment assigned, Assignment pendingRevocation) {
        return new ConsumerGroupMember(memberId, instanceId, rackId, clientId, clientHost, subscribedTopicNames,
                subscribedTopicRegex, serverAssignor, rebalanceTimeoutMs, newEpoch,
                newEpoch != memberEpoch ? memberEpoch : previousMemberEpoch, newState, assigned, pendingRevocation);
    }

    /** The same member under another id (a static member that restarted takes over its predecessor's place). */
    ConsumerGroupMember withMemberId(String newMemberId, int epoch) {
        return new ConsumerGroupMember(newMemberId, instanceId, rackId, clientId, clientHost, subscribedTopicNames,
                subscribedTopicRegex, serverAssignor, rebalanceTimeoutMs, epoch, previousMemberEpoch, state,
                assignedPartitions, partitionsPendingRevocation);
    }

    boolean hasSameSubscription(ConsumerGroupMember other) {
        return subscribedTopicNames.equals(other.subscribedTopicNames)
                && java.util.Objects.equals(subscribedTopicRegex, other.subscribedTopicRegex)
                && java.util.Objects.equals(serverAssignor, other.serverAssignor);
    }

    /** Kafka's {@code isReconciledTo}: Stable in the target epoch. */
    public boolean isReconciledTo(int targetAssignmentEpoch) {
        return state == MemberState.STABLE && memberEpoch == targetAssignmentEpoch;
    }

    public boolean isStatic() {
        return instanceId != null;
    }
}
