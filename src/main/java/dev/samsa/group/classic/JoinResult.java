package dev.samsa.group.classic;

import java.util.List;
import org.apache.kafka.common.protocol.Errors;

/**
 * The answer to one JoinGroup, handed to the handler's callback now or when the join phase completes. The leader gets
 * every member's metadata for the selected protocol; followers get an empty list.
 */
public record JoinResult(Errors error, String memberId, int generationId, String protocolType, String protocolName,
                         String leader, boolean skipAssignment, List<JoinedMember> members) {

    /** A member as the leader sees it: id, instance id and its metadata for the selected protocol. */
    public record JoinedMember(String memberId, String groupInstanceId, byte[] metadata) {
    }

    public static JoinResult error(Errors error, String memberId) {
        return new JoinResult(error, memberId, -1, null, null, "", false, List.of());
    }
}
