package dev.samsa.handler;

import dev.samsa.cluster.BrokerConfigs;
import dev.samsa.cluster.BrokerInfo;
import dev.samsa.cluster.ClusterState;
import dev.samsa.cluster.ReplicaManager;
import dev.samsa.group.GroupCoordinator;
import dev.samsa.security.ClusterSecurity;
import dev.samsa.txn.TransactionCoordinator;
import dev.samsa.wire.KafkaRequest;

/**
 * The broker that received a request, and the cluster behind it (the group and transaction coordinators are one each
 * for the whole cluster).
 */
public record BrokerContext(int brokerId, ClusterState cluster, FetchSessionCache fetchSessions, Handlers handlers,
                            GroupCoordinator groups, TransactionCoordinator transactions, ClusterSecurity security) {

    /** A broker whose one listener is PLAINTEXT. */
    public BrokerContext(int brokerId, ClusterState cluster, FetchSessionCache fetchSessions, Handlers handlers,
                         GroupCoordinator groups, TransactionCoordinator transactions) {
        this(brokerId, cluster, fetchSessions, handlers, groups, transactions, ClusterSecurity.plaintext());
    }

    /**
     * The port of broker {@code b} on the listener {@code request} came in on, which is the one an answer advertises
     * (Kafka: the endpoint of the request's listener name).
     */
    public int advertisedPort(BrokerInfo b, KafkaRequest request) {
        return security.port(request.listenerName(), b.id(), b.port());
    }

    public ReplicaManager replicaManager() {
        return cluster.replicaManager();
    }

    public BrokerConfigs configs() {
        return cluster.metadata().brokerConfigs(brokerId);
    }
}
