package dev.samsa.group.classic;

/**
 * The broker configs the classic protocol reads, taken from the coordinator's broker on each request.
 * {@code newMemberJoinTimeoutMs} is Kafka's fixed 5 minutes for a new member parked in its first JoinGroup.
 */
public record ClassicGroupConfig(int minSessionTimeoutMs, int maxSessionTimeoutMs, int maxSize, int initialRebalanceDelayMs,
                                 int newMemberJoinTimeoutMs) {
}
