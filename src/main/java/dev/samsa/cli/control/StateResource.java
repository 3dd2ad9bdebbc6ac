package dev.samsa.cli.control;

import dev.samsa.ConsumerGroup;
import dev.samsa.GroupState;
import dev.samsa.KafkaCluster;
import dev.samsa.TxnState;
import dev.samsa.TransactionView;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Reads: the whole cluster, one broker, topic, partition, group or transaction. Nothing here changes the cluster. */
final class StateResource {

    private final KafkaCluster cluster;

    StateResource(KafkaCluster cluster) {
        this.cluster = cluster;
    }

    void register(Router router) {
        router.add("GET", "/cluster", call -> Response.json(cluster()))
                .add("GET", "/brokers", call -> Response.json(cluster.brokers().stream().map(Views::broker).toList()))
                .add("GET", "/brokers/{id}", call -> Response.json(Views.broker(Names.broker(cluster, call.intParam("id")))))
                .add("GET", "/topics", call -> Response.json(topics()))
                .add("GET", "/topics/{topic}", call -> Response.json(topic(call.param("topic"))))
                .add("GET", "/topics/{topic}/partitions/{partition}", call -> Response.json(
                        Views.partition(cluster, call.param("topic"), call.intParam("partition"))))
                .add("GET", "/groups", call -> Response.json(groups()))
                .add("GET", "/groups/{id}", call -> Response.json(group(call.param("id"))))
                .add("GET", "/transactions", call -> Response.json(transactions()))
                .add("GET", "/transactions/{id}", call -> Response.json(transaction(call.param("id"))));
    }

    private Map<String, Object> cluster() {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("bootstrapServers", cluster.bootstrapServers());
        out.put("seed", cluster.seed());
        out.put("controller", cluster.controller());
        out.put("clock", ClockResource.clock(cluster));
        out.put("brokers", cluster.brokers().stream().map(Views::broker).toList());
        out.put("topics", topics());
        out.put("groups", groups());
        out.put("transactions", transactions());
        return out;
    }

    private List<Object> topics() {
        List<Object> out = new ArrayList<>();
        cluster.topics().forEach((name, partitions) -> out.add(Views.topic(cluster, name, partitions)));
        return out;
    }

    private Map<String, Object> topic(String name) {
        Integer partitions = cluster.topics().get(name);
        if (partitions == null) {
            throw ControlException.notFound("Unknown topic '" + name + "'; GET /topics lists the topics");
        }
        return Views.topic(cluster, name, partitions);
    }

    private List<Object> groups() {
        return cluster.groupIds().stream().map(id -> (Object) Views.group(cluster.group(id), cluster.groupCoordinator(id))).toList();
    }

    /** A group the cluster has never heard of is a 404, though the Java API reports it Dead. */
    private Map<String, Object> group(String id) {
        ConsumerGroup g = cluster.group(id);
        if (g.state() == GroupState.DEAD && g.members().isEmpty() && g.committed().isEmpty()
                && !cluster.groupIds().contains(id)) {
            throw ControlException.notFound("Unknown group '" + id + "'; GET /groups lists the groups");
        }
        return Views.group(g, cluster.groupCoordinator(id));
    }

    private List<Object> transactions() {
        return cluster.transactionalIds().stream().map(id -> (Object) Views.transaction(cluster.transaction(id))).toList();
    }

    private Map<String, Object> transaction(String id) {
        TransactionView t = cluster.transaction(id);
        if (t.state() == TxnState.DEAD && t.producerId() < 0) {
            throw ControlException.notFound("Unknown transactional id '" + id + "'; GET /transactions lists them");
        }
        return Views.transaction(t);
    }
}
