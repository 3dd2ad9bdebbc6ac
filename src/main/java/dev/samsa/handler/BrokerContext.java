package dev.samsa.handler;

import dev.samsa.cluster.BrokerConfigs;
import dev.samsa.cluster.ClusterState;
import dev.samsa.cluster.ReplicaManager;
import dev.samsa.group.GroupCoordinator;
import dev.samsa.txn.TransactionCoordinator;

/**
 * The broker that received a request, and the cluster behind it (the group and transaction coordinators are one each
 * for the whole cluster).
 */
public record BrokerContext(int brokerId, ClusterState cluster, FetchSessionCache fetchSessions, Handlers handlers,
                            GroupCoordinator groups, TransactionCoordinator transactions) {

    public ReplicaManager replicaManager() {
        return cluster.replicaManager();
    }

    public BrokerConfigs configs() {
        return cluster.metadata().brokerConfigs(brokerId);
    }
}
