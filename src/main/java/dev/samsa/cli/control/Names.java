package dev.samsa.cli.control;

import dev.samsa.Api;
import dev.samsa.Broker;
import dev.samsa.GroupState;
import dev.samsa.KafkaCluster;
import dev.samsa.KafkaError;
import dev.samsa.TxnState;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Names a client sends, resolved to the Java API's: Kafka's API and error names ({@code PRODUCE},
 * {@code NOT_LEADER_OR_FOLLOWER}; case and dashes do not matter), group and transaction states as Kafka prints them
 * ({@code "PreparingRebalance"}, also {@code PREPARING_REBALANCE}), and broker ids. Each miss is a 400 or 404 that
 * lists what would have been understood.
 */
final class Names {

    private Names() {
    }

    static Api api(String name) {
        return constant(Api.class, name, "API");
    }

    static KafkaError error(String name) {
        return constant(KafkaError.class, name, "error");
    }

    static GroupState groupState(String name) {
        for (GroupState s : GroupState.values()) {
            if (s.toString().equalsIgnoreCase(name) || s.name().equalsIgnoreCase(name)) {
                return s;
            }
        }
        throw ControlException.badRequest("Unknown group state '" + name + "'; one of "
                + Arrays.stream(GroupState.values()).map(GroupState::toString).collect(Collectors.joining(", ")));
    }

    static TxnState txnState(String name) {
        for (TxnState s : TxnState.values()) {
            if (s.toString().equalsIgnoreCase(name) || s.name().equalsIgnoreCase(name)) {
                return s;
            }
        }
        throw ControlException.badRequest("Unknown transaction state '" + name + "'; one of "
                + Arrays.stream(TxnState.values()).map(TxnState::toString).collect(Collectors.joining(", ")));
    }

    /** @throws ControlException 404 for an id the cluster has no broker for */
    static Broker broker(KafkaCluster cluster, int id) {
        int count = cluster.brokers().size();
        if (id < 1 || id > count) {
            throw ControlException.notFound("Unknown broker " + id + "; this cluster has brokers 1.." + count);
        }
        return cluster.broker(id);
    }

    /** @throws ControlException 404 for a topic or partition the cluster does not have */
    static void partition(KafkaCluster cluster, String topic, int partition) {
        Integer partitions = cluster.topics().get(topic);
        if (partitions == null) {
            throw ControlException.notFound("Unknown topic '" + topic + "'; GET /cluster lists the topics");
        }
        if (partition < 0 || partition >= partitions) {
            throw ControlException.notFound("Unknown partition " + partition + " of topic '" + topic
                    + "'; it has partitions 0.." + (partitions - 1));
        }
    }

    private static <E extends Enum<E>> E constant(Class<E> type, String name, String what) {
        String normal = name.trim().replace('-', '_').toUpperCase(Locale.ROOT);
        for (E e : type.getEnumConstants()) {
            if (e.name().equals(normal)) {
                return e;
            }
        }
        throw ControlException.badRequest("Unknown " + what + " name '" + name + "'; one of "
                + Arrays.stream(type.getEnumConstants()).map(Enum::name).collect(Collectors.joining(", ")));
    }
}
