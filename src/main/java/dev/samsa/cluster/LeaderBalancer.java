package dev.samsa.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Automatic preferred leader election, as Kafka's controller runs it (KafkaController.checkAndTriggerAutoLeaderRebalance):
 * every leader.imbalance.check.interval.seconds of cluster time, for each broker that is the preferred replica (the
 * first) of some partitions, the imbalance ratio is the share of those partitions it does not lead; when that ratio
 * exceeds leader.imbalance.per.broker.percentage, each of them whose preferred replica is alive and in the ISR gets a
 * preferred election. auto.leader.rebalance.enable=false skips the check. The timer is an age deadline: a manual clock
 * jump past it runs the check.
 *
 * <p>The configs are the controller's (the lowest live broker), read at each check; a changed interval takes effect
 * from the next one. KRaft's controller drops the per-broker percentage and balances any imbalanced partition; Samsa
 * follows the documented behaviour of the config.
 */
final class LeaderBalancer {

    static final String TIMER_KEY = "leader-imbalance-check";

    private final ClusterState cluster;

    LeaderBalancer(ClusterState cluster) {
        this.cluster = cluster;
    }

    void schedule() {
        long intervalMs = configs().getLong("leader.imbalance.check.interval.seconds") * 1000L;
        cluster.scheduler().scheduleAfter(TIMER_KEY, intervalMs, () -> {
            check();
            schedule();
        });
    }

    /** The controller's configs; while every broker is down, those of the first registered one. */
    private BrokerConfigs configs() {
        BrokerConfigs configs = cluster.metadata().controllerConfigs();
        return configs != null ? configs : cluster.metadata().brokerConfigs(cluster.metadata().brokerIds().iterator().next());
    }

    void check() {
        BrokerConfigs configs = cluster.metadata().controllerConfigs();
        if (configs == null || !configs.getBoolean("auto.leader.rebalance.enable")) {
            return;
        }
        double allowed = configs.getInt("leader.imbalance.per.broker.percentage") / 100.0;
        Map<Integer, List<Partition>> byPreferred = new TreeMap<>();
        for (Topic topic : cluster.metadata().topics()) {
            for (Partition p : topic.partitions()) {
                byPreferred.computeIfAbsent(p.replicas().get(0), b -> new ArrayList<>()).add(p);
            }
        }
        Controller controller = cluster.controller();
        byPreferred.forEach((broker, partitions) -> {
            List<Partition> notLed = partitions.stream().filter(p -> p.leader() != broker).toList();
            double ratio = (double) notLed.size() / partitions.size();
            if (ratio > allowed) {
                for (Partition p : notLed) {
                    controller.electPreferred(p, "preferred leader rebalance");
                }
            }
        });
    }
}
