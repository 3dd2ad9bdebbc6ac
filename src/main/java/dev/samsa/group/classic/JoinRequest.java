package dev.samsa.group.classic;

import java.util.List;

/**
 * A JoinGroup in domain terms. {@code requireKnownMemberId} is v4+ (first join answers MEMBER_ID_REQUIRED);
 * {@code supportsSkippingAssignment} is v9+ (a static leader rejoining a Stable group need not reassign).
 */
public record JoinRequest(String groupId, String memberId, String groupInstanceId, String protocolType,
                          List<Protocol> protocols, int sessionTimeoutMs, int rebalanceTimeoutMs, String clientId,
                          String clientHost, boolean requireKnownMemberId, boolean supportsSkippingAssignment,
                          String reason) {
}
