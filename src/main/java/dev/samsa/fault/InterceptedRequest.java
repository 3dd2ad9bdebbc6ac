package dev.samsa.fault;

import java.util.Set;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * What an interceptor sees of a request: its header, the broker it reached, and the topics it names (for the APIs
 * that carry topics, see {@code handler/RequestTopics}; empty for the others). Never the rest of its body.
 */
public record InterceptedRequest(ApiKeys api, short version, int brokerId, String clientId, int correlationId,
        Set<String> topics) {

    public InterceptedRequest {
        topics = Set.copyOf(topics);
    }
}
