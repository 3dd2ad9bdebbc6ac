package dev.samsa.handler;

import dev.samsa.wire.KafkaRequest;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * One Kafka API. Runs on the cluster loop; answers through the request, now or later (a parked operation). An
 * exception it throws becomes Kafka's error response for the whole request. The versions it serves are stated where
 * it is registered ({@link Handlers#standard()}) and named in its header comment, never taken from kafka-clients.
 */
public interface ApiHandler {

    ApiKeys apiKey();

    void handle(KafkaRequest request, BrokerContext broker);
}
