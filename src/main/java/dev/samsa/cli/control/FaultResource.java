package dev.samsa.cli.control;

import dev.samsa.Api;
import dev.samsa.Broker;
import dev.samsa.Faults;
import dev.samsa.KafkaCluster;
import dev.samsa.KafkaError;
import dev.samsa.RequestInterceptor;
import dev.samsa.RequestInterceptor.Verdict;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Faults: a broker's crash, power loss, shutdown, start, isolation, heal and latency; a follower's paused
 * replication; dropped client connections; and request interceptions (fail or delay the next requests of an API),
 * which {@code DELETE /faults} removes. Every route here may also be a trigger's action, so each runs whole on the
 * calling thread or the cluster loop alike.
 */
final class FaultResource {

    /** An interception this endpoint installed, for GET and DELETE /faults. */
    private record Installed(int id, Api api, KafkaError error, long delayMs, Integer broker, String topic, int count,
                             AtomicInteger remaining, Faults.Interception interception) {

        Map<String, Object> view() {
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("id", id);
            out.put("kind", error != null ? "fail-next" : "delay-next");
            out.put("api", api.name());
            if (error != null) {
                out.put("error", error.name());
            } else {
                out.put("delayMs", delayMs);
            }
            out.put("broker", broker);
            out.put("topic", topic);
            out.put("count", count);
            out.put("remaining", Math.max(0, remaining.get()));
            return out;
        }
    }

    private final KafkaCluster cluster;
    private final ActionResult result;
    private final List<Installed> installed = new ArrayList<>();
    private int nextId = 1;

    FaultResource(KafkaCluster cluster, ActionResult result) {
        this.cluster = cluster;
        this.result = result;
    }

    void register(Router router) {
        router.add("POST", "/brokers/{id}/crash", call -> broker(call, Broker::crash))
                .add("POST", "/brokers/{id}/power-loss", call -> broker(call, Broker::powerLoss))
                .add("POST", "/brokers/{id}/shutdown", call -> broker(call, Broker::shutdown))
                .add("POST", "/brokers/{id}/start", call -> broker(call, Broker::restart))
                .add("POST", "/brokers/{id}/restart", call -> broker(call, Broker::restart))
                .add("POST", "/brokers/{id}/isolate", this::isolate)
                .add("POST", "/brokers/{id}/heal", call -> broker(call, Broker::heal))
                .add("POST", "/brokers/{id}/drop-connections", call -> broker(call, Broker::dropConnections))
                .add("POST", "/brokers/{id}/latency", this::latency)
                .add("POST", "/partitions/{topic}/{partition}/followers/{id}/pause", call -> follower(call, true))
                .add("POST", "/partitions/{topic}/{partition}/followers/{id}/resume", call -> follower(call, false))
                .add("POST", "/clients/drop-connections", this::dropConnections)
                .add("GET", "/faults", call -> Response.json(Map.of("interceptions", interceptions())))
                .add("DELETE", "/faults", this::clear)
                .add("POST", "/faults/fail-next", call -> interceptNext(call, true))
                .add("POST", "/faults/delay-next", call -> interceptNext(call, false))
                .add("POST", "/faults/hold-markers", call -> markers(call, true))
                .add("POST", "/faults/release-markers", call -> markers(call, false))
                .add("POST", "/faults/transaction-coordinator", this::transactionCoordinator);
    }

    private Response broker(Call call, java.util.function.Consumer<Broker> action) {
        call.json().allowOnly();
        Broker broker = Names.broker(cluster, call.intParam("id"));
        action.accept(broker);
        return result.of(call, "broker", Views.broker(broker));
    }

    /** {"fromBrokers": true} or {"fromClients": true} for one side only; both or neither cut it off from everyone. */
    private Response isolate(Call call) {
        Body body = call.json().allowOnly("fromBrokers", "fromClients");
        Broker broker = Names.broker(cluster, call.intParam("id"));
        boolean fromBrokers = body.bool("fromBrokers", false);
        boolean fromClients = body.bool("fromClients", false);
        if (fromBrokers && !fromClients) {
            broker.isolateFromBrokers();
        } else if (fromClients && !fromBrokers) {
            broker.isolateFromClients();
        } else {
            broker.isolate();
        }
        return result.of(call, "broker", Views.broker(broker));
    }

    private Response latency(Call call) {
        Body body = call.json().allowOnly("ms");
        Broker broker = Names.broker(cluster, call.intParam("id"));
        long ms = body.number("ms");
        if (ms < 0) {
            throw ControlException.badRequest("Field 'ms' must be 0 (no added latency) or more, got " + ms);
        }
        cluster.faults().latency(broker.id(), Duration.ofMillis(ms));
        return result.of(call, "broker", Views.broker(broker));
    }

    private Response follower(Call call, boolean pause) {
        call.json().allowOnly();
        String topic = call.param("topic");
        int partition = call.intParam("partition");
        Names.partition(cluster, topic, partition);
        int id = Names.broker(cluster, call.intParam("id")).id();
        if (pause) {
            cluster.faults().pauseReplication(topic, partition, id);
        } else {
            cluster.faults().resumeReplication(topic, partition, id);
        }
        return result.of(call, "partition", Views.partition(cluster, topic, partition));
    }

    /** Every running broker's client connections, or one broker's with {"broker": id}. */
    private Response dropConnections(Call call) {
        Body body = call.json().allowOnly("broker");
        if (body.has("broker")) {
            Names.broker(cluster, body.integer("broker")).dropConnections();
        } else {
            cluster.brokers().stream().filter(Broker::isRunning).forEach(Broker::dropConnections);
        }
        return result.of(call);
    }

    /**
     * {"api": "PRODUCE", "error": "NOT_LEADER_OR_FOLLOWER", "count": 2, "broker": 1, "topic": "orders"} answers the
     * next two produce requests to broker 1 that name orders with the error; {"api": ..., "ms": 500} delays them
     * instead. Without "broker", requests to any broker count; without "topic", requests of any topic.
     */
    private Response interceptNext(Call call, boolean fail) {
        Body body = fail ? call.json().allowOnly("api", "error", "count", "broker", "topic")
                : call.json().allowOnly("api", "ms", "count", "broker", "topic");
        String topic = body.has("topic") ? body.string("topic") : null;
        if (topic != null && !cluster.topics().containsKey(topic)) {
            throw ControlException.notFound("Unknown topic '" + topic + "'; topics are " + cluster.topics().keySet());
        }
        Api api = Names.api(body.string("api"));
        int count = body.integer("count", 1);
        if (count < 1) {
            throw ControlException.badRequest("Field 'count' must be 1 or more, got " + count);
        }
        Integer broker = body.has("broker") ? Names.broker(cluster, body.integer("broker")).id() : null;
        KafkaError error = fail ? Names.error(body.string("error")) : null;
        long ms = fail ? 0 : body.number("ms");
        if (ms < 0) {
            throw ControlException.badRequest("Field 'ms' must be 0 or more, got " + ms);
        }
        Verdict verdict = fail ? Verdict.fail(error) : Verdict.delay(Duration.ofMillis(ms));
        AtomicInteger remaining = new AtomicInteger(count);
        RequestInterceptor interceptor = request -> {
            if (broker != null && request.brokerId() != broker || topic != null && !request.topics().contains(topic)) {
                return Verdict.pass();
            }
            return remaining.decrementAndGet() > 0 ? verdict.andKeep() : verdict;
        };
        Installed entry;
        synchronized (this) {
            Faults.Interception interception = cluster.faults().intercept(api, interceptor);
            entry = new Installed(nextId++, api, error, ms, broker, topic, count, remaining, interception);
            installed.add(entry);
        }
        return result.of(call, "interception", entry.view());
    }

    private synchronized List<Object> interceptions() {
        installed.removeIf(i -> i.remaining().get() <= 0);
        return installed.stream().map(i -> (Object) i.view()).toList();
    }

    private Response clear(Call call) {
        List<Installed> removed;
        synchronized (this) {
            removed = new ArrayList<>(installed);
            installed.clear();
        }
        long active = removed.stream().filter(i -> i.remaining().get() > 0).count();
        removed.forEach(i -> i.interception().remove());
        return result.of(call, "removed", active);
    }

    /** {"topic": "orders", "partition": 0} for one partition's markers, or {"broker": 2} for those it leads. */
    private Response markers(Call call, boolean hold) {
        Body body = call.json().allowOnly("topic", "partition", "broker");
        if (body.has("broker") == body.has("topic")) {
            throw ControlException.badRequest("Give either 'topic' and 'partition' or 'broker'");
        }
        if (body.has("broker")) {
            int broker = Names.broker(cluster, body.integer("broker")).id();
            if (hold) {
                cluster.faults().holdTransactionMarkers(broker);
            } else {
                cluster.faults().releaseTransactionMarkers(broker);
            }
        } else {
            String topic = body.string("topic");
            int partition = body.integer("partition");
            Names.partition(cluster, topic, partition);
            if (hold) {
                cluster.faults().holdTransactionMarkers(topic, partition);
            } else {
                cluster.faults().releaseTransactionMarkers(topic, partition);
            }
        }
        return result.of(call);
    }

    /** {"transactionalId": "tx", "state": "PrepareCommit", "action": "crash"} (or "isolate"). */
    private Response transactionCoordinator(Call call) {
        Body body = call.json().allowOnly("transactionalId", "state", "action");
        String id = body.string("transactionalId");
        var state = Names.txnState(body.string("state"));
        switch (body.string("action", "crash")) {
            case "crash" -> cluster.faults().crashTransactionCoordinator(id, state);
            case "isolate" -> cluster.faults().isolateTransactionCoordinator(id, state);
            default -> throw ControlException.badRequest("Field 'action' must be \"crash\" or \"isolate\", got \""
                    + body.string("action") + "\"");
        }
        return result.of(call);
    }
}
