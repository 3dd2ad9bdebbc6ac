package dev.samsa.group.modern.consumer;

import java.util.List;

/**
 * The broker's {@code group.consumer.*} configs: heartbeat interval (told to members), session timeout (a liveness
 * deadline on the cluster clock), max size, and the server assignors by name, the first the default.
 */
public record ConsumerGroupConfig(int heartbeatIntervalMs, int sessionTimeoutMs, int maxSize, List<String> assignors) {

    public ConsumerGroupConfig {
        assignors = List.copyOf(assignors);
    }
}
