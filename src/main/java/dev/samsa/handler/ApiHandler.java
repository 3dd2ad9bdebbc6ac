package dev.samsa.handler;

import dev.samsa.wire.KafkaRequest;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * One Kafka API. Runs on the cluster loop; answers through the request, now or later (a parked operation). An
 * exception it throws becomes Kafka's error response for the whole request.
 */
public interface ApiHandler {

    ApiKeys apiKey();

    /** Lowest version served; by default the lowest kafka-clients knows. */
    default short minVersion() {
        return apiKey().oldestVersion();
    }

    /** Highest version served; by default the highest kafka-clients knows. */
    default short maxVersion() {
        return apiKey().latestVersion();
    }

    void handle(KafkaRequest request, BrokerContext broker);
}
