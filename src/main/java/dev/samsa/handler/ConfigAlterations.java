package dev.samsa.handler;

import dev.samsa.wire.KafkaRequest;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.requests.ApiError;

/**
 * What both AlterConfigs APIs (the incremental one and the legacy one) check of each resource of a request before
 * changing it, as Kafka's {@code ConfigAdminManager.preprocess}: the principal may ALTER_CONFIGS it, and the request
 * names it once ("Each resource must appear at most once."). Each resource is all or nothing.
 */
final class ConfigAlterations {

    private final KafkaRequest request;
    private final BrokerContext broker;
    private final Map<String, Integer> counts = new HashMap<>();

    <R> ConfigAlterations(KafkaRequest request, BrokerContext broker, Iterable<R> resources, Function<R, Byte> type,
                          Function<R, String> name) {
        this.request = request;
        this.broker = broker;
        resources.forEach(r -> counts.merge(type.apply(r) + "/" + name.apply(r), 1, Integer::sum));
    }

    /** The outcome for one resource: its checks, then {@code alter}, which throws Kafka's error for it. */
    ApiError alter(byte type, String name, Runnable alter) {
        try {
            Acls.requireConfigs(request, broker, AclOperation.ALTER_CONFIGS, type, name);
            if (counts.get(type + "/" + name) > 1) {
                throw new InvalidRequestException("Each resource must appear at most once.");
            }
            alter.run();
            return ApiError.NONE;
        } catch (ApiException e) {
            return ApiError.fromThrowable(e);
        }
    }
}
