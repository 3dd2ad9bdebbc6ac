package dev.samsa.fault;

import org.apache.kafka.common.protocol.ApiKeys;

/** What an interceptor sees of a request: its header and the broker it reached, never its body. */
public record InterceptedRequest(ApiKeys api, short version, int brokerId, String clientId, int correlationId) {
}
