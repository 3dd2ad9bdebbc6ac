package dev.samsa.group.classic;

import java.util.List;

/**
 * What survives of a classic group in {@code __consumer_offsets}, as Kafka's {@code GroupMetadataValue}: written when a
 * rebalance completes (the group becomes Stable with its assignment, or Empty) and when a static member is replaced,
 * and read back by the coordinator that takes the partition over, so a Stable group stays Stable with its members.
 * Each member keeps only its metadata for the selected protocol, as in Kafka.
 *
 * @param currentStateTimestampMs cluster time of the group's last transition (Empty: when it became empty, which
 *                                offsets retention counts from); -1 unknown
 */
public record ClassicGroupMetadata(String protocolType, int generationId, String protocolName, String leaderId,
                                   long currentStateTimestampMs, List<Member> members) {

    public ClassicGroupMetadata {
        members = List.copyOf(members);
    }

    /** One member of the generation: identity, timeouts, its subscription for the selected protocol and assignment. */
    public record Member(String memberId, String groupInstanceId, String clientId, String clientHost, int rebalanceTimeoutMs,
                         int sessionTimeoutMs, byte[] subscription, byte[] assignment) {
    }
}
