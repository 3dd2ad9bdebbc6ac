package dev.samsa.group.modern.consumer;

import dev.samsa.group.modern.Assignment;

/** The answer to a ConsumerGroupHeartbeat; {@code assignment} is null when the member's has not changed. */
public record HeartbeatResult(String memberId, int memberEpoch, int heartbeatIntervalMs, Assignment assignment) {
}
