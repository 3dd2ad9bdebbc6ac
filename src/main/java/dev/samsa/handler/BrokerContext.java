package dev.samsa.handler;

import dev.samsa.cluster.BrokerConfigs;
import dev.samsa.cluster.ClusterState;
import dev.samsa.cluster.ReplicaManager;

/** The broker that received a request, and the cluster behind it. */
public record BrokerContext(int brokerId, ClusterState cluster, FetchSessionCache fetchSessions, Handlers handlers) {

    public ReplicaManager replicaManager() {
        return new ReplicaManager(cluster);
    }

    public BrokerConfigs configs() {
        return cluster.metadata().brokerConfigs(brokerId);
    }
}
