package dev.samsa.handler;

import dev.samsa.cluster.BrokerConfigs;
import dev.samsa.cluster.BrokerInfo;
import dev.samsa.cluster.ClusterState;
import dev.samsa.cluster.ReplicaManager;
import dev.samsa.event.AuthorizationDenied;
import dev.samsa.group.GroupCoordinator;
import dev.samsa.security.Authorizer;
import dev.samsa.security.ClusterSecurity;
import dev.samsa.txn.TransactionCoordinator;
import dev.samsa.wire.KafkaRequest;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.SecurityDisabledException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.utils.Utils;

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

    /**
     * Whether the request's principal, from its host, may do {@code operation} on the named resource; a refusal is an
     * AuthorizationDenied event (Kafka's audit log with logIfDenied).
     */
    public boolean authorized(KafkaRequest request, AclOperation operation, ResourceType type, String name) {
        boolean allowed = authorizedQuietly(request, operation, type, name);
        if (!allowed) {
            recordDenial(request, operation, type, name);
        }
        return allowed;
    }

    /**
     * {@link #authorized} for a check whose refusal only filters or falls back to another check (Kafka's
     * logIfDenied=false): no event.
     */
    public boolean authorizedQuietly(KafkaRequest request, AclOperation operation, ResourceType type, String name) {
        return security.authorizer().authorize(request.principal(), host(request), operation, type, name);
    }

    /** Puts a denial on the timeline, once per principal, operation, resource and API until the ACLs change. */
    public void recordDenial(KafkaRequest request, AclOperation operation, ResourceType type, String name) {
        String principal = request.principal().toString();
        String api = request.apiKey().name();
        if (security.authorizer().firstDenial(List.of(principal, operation.name(), type.name(), name, api))) {
            cluster.timeline().record(new AuthorizationDenied(brokerId, principal, operation.name(), type.name(), name, api));
        }
    }

    /** @throws ClusterAuthorizationException unless the request's principal may do {@code operation} on the cluster */
    public void requireCluster(KafkaRequest request, AclOperation operation) {
        if (!authorized(request, operation, ResourceType.CLUSTER, Acls.CLUSTER_NAME)) {
            throw new ClusterAuthorizationException("Request " + request.apiKey() + " is not authorized.");
        }
    }

    /**
     * The authorizer the ACL-changing APIs act on, as Kafka's AclApis finds it.
     *
     * @throws ClusterAuthorizationException unless the principal may do {@code operation} on the cluster
     * @throws SecurityDisabledException when the cluster has no authorizer
     */
    Authorizer requireAuthorizer(KafkaRequest request, AclOperation operation) {
        requireCluster(request, operation);
        if (!security.authorizer().enabled()) {
            throw new SecurityDisabledException("No Authorizer is configured.");
        }
        return security.authorizer();
    }

    /** @throws GroupAuthorizationException unless the request's principal may do {@code operation} on the group */
    public void requireGroup(KafkaRequest request, AclOperation operation, String groupId) {
        if (!authorized(request, operation, ResourceType.GROUP, groupId)) {
            throw GroupAuthorizationException.forGroupId(groupId);
        }
    }

    /** @throws TransactionalIdAuthorizationException unless the request's principal may WRITE the transactional id */
    public void requireTransactionalId(KafkaRequest request, String transactionalId) {
        if (!authorized(request, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, transactionalId)) {
            throw new TransactionalIdAuthorizationException("Transactional Id authorization failed.");
        }
    }

    /**
     * The operations of Kafka's supported set for the resource type that the principal may do on the resource, as the
     * bit field the authorized-operations fields carry (Kafka's AuthHelper.authorizedOperations; everything without an
     * authorizer). Only asking, never a denial: no AuthorizationDenied event.
     */
    public int authorizedOperations(KafkaRequest request, ResourceType type, String name) {
        Set<Byte> codes = new HashSet<>();
        for (AclOperation operation : Acls.SUPPORTED_OPERATIONS.get(type)) {
            if (security.authorizer().authorize(request.principal(), host(request), operation, type, name)) {
                codes.add(operation.code());
            }
        }
        return Utils.to32BitField(codes);
    }

    /** Whether the request's principal may do {@code operation} on some resource of the type. */
    public boolean authorizedForAny(KafkaRequest request, AclOperation operation, ResourceType type) {
        return security.authorizer().authorizeAny(request.principal(), host(request), operation, type);
    }

    /** The client's IP address, as ACLs name hosts ("/127.0.0.1:5000" becomes "127.0.0.1"). */
    private static String host(KafkaRequest request) {
        String address = request.clientAddress();
        int colon = address.lastIndexOf(':');
        String host = colon < 0 ? address : address.substring(0, colon);
        return host.substring(host.indexOf('/') + 1);
    }

    public ReplicaManager replicaManager() {
        return cluster.replicaManager();
    }

    public BrokerConfigs configs() {
        return cluster.metadata().brokerConfigs(brokerId);
    }
}
