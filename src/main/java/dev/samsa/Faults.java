package dev.samsa;

import dev.samsa.cluster.ClusterState;
import dev.samsa.cluster.Partition;
import dev.samsa.event.BrokerLatency;
import dev.samsa.event.ClusterEvent;
import dev.samsa.event.FailuresScheduled;
import dev.samsa.event.InterceptionRemoved;
import dev.samsa.event.ReplicationPaused;
import dev.samsa.event.ReplicationResumed;
import dev.samsa.event.RequestsIntercepted;
import dev.samsa.event.TxnCoordinatorFaultArmed;
import dev.samsa.event.TxnMarkersHeld;
import dev.samsa.event.TxnMarkersReleased;
import dev.samsa.fault.InterceptedRequest;
import dev.samsa.fault.RequestInterceptors;
import dev.samsa.fault.Verdict;
import dev.samsa.time.ClusterLoop;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;

/**
 * Faults a test applies to the cluster: request interception ({@link RequestInterceptor}, of which {@link #failNext}
 * is one), paused replication, added latency, held transaction markers and a crash or isolation of a transaction
 * coordinator at a chosen state. Each one applied or healed is an event on the timeline. Per-broker
 * faults (crash, power loss, isolation) are on {@link Broker}; what each fault does is described once, in
 * {@code fault/FaultState}.
 */
public final class Faults {

    private final KafkaCluster cluster;
    private final ClusterLoop loop;
    private final ClusterState state;

    Faults(KafkaCluster cluster, ClusterLoop loop, ClusterState state) {
        this.cluster = cluster;
        this.loop = loop;
        this.state = state;
    }

    /**
     * Answers the next {@code count} requests of {@code api}, to any broker, with {@code error}: an interceptor (see
     * {@link RequestInterceptor}) that fails {@code count} requests and is then removed.
     */
    public Faults failNext(Api api, KafkaError error, int count) {
        return failNext(api, error, count, null);
    }

    /**
     * Answers the next {@code count} requests of {@code api} that name {@code topic} (see
     * {@link RequestInterceptor.Request#topics()}), to any broker, with {@code error}; requests of other topics pass.
     * A null topic counts every request, as {@link #failNext(Api, KafkaError, int)}.
     */
    public Faults failNext(Api api, KafkaError error, int count, String topic) {
        if (count <= 0) {
            throw new IllegalArgumentException("count must be positive; got " + count);
        }
        Objects.requireNonNull(api, "api");
        Verdict failure = Verdict.fail(Objects.requireNonNull(error, "error").toErrors());
        int[] remaining = {count};
        install(api, request -> topic != null && !request.topics().contains(topic) ? Verdict.pass()
                        : --remaining[0] > 0 ? failure.andKeep() : failure,
                new FailuresScheduled(api.toString(), error.toString(), count));
        return this;
    }

    /**
     * Installs {@code interceptor} for every request of {@code api} to any broker, after the interceptors already
     * installed. See {@link RequestInterceptor} for the order, the lifetime and the threading.
     */
    public Interception intercept(Api api, RequestInterceptor interceptor) {
        Objects.requireNonNull(api, "api");
        return install(api, adapt(interceptor), new RequestsIntercepted(api.toString()));
    }

    /** Installs {@code interceptor} for every request of every API, as {@link #intercept(Api, RequestInterceptor)}. */
    public Interception interceptAll(RequestInterceptor interceptor) {
        return install(null, adapt(interceptor), new RequestsIntercepted(null));
    }

    /** An installed interceptor, which the test can remove. */
    public final class Interception implements AutoCloseable {

        private final RequestInterceptors.Installed installed;
        private final String api;

        private Interception(RequestInterceptors.Installed installed, String api) {
            this.installed = installed;
            this.api = api;
        }

        /** Removes the interceptor, if it is still installed; the requests it has not seen go on without it. */
        public void remove() {
            loop.call(() -> {
                if (state.faults().interceptors().remove(installed)) {
                    state.timeline().record(new InterceptionRemoved(api));
                }
                return null;
            });
        }

        /** {@link #remove()}, so that a try-with-resources block bounds an interception. */
        @Override
        public void close() {
            remove();
        }

        @Override
        public String toString() {
            return "interception of " + (api == null ? "every request" : api + " requests");
        }
    }

    private Interception install(Api api, Function<InterceptedRequest, Verdict> interceptor, ClusterEvent applied) {
        return loop.call(() -> {
            RequestInterceptors.Installed installed =
                    state.faults().interceptors().add(api == null ? null : api.toApiKey(), interceptor);
            state.timeline().record(applied);
            return new Interception(installed, api == null ? null : api.toString());
        });
    }

    private static Function<InterceptedRequest, Verdict> adapt(RequestInterceptor interceptor) {
        Objects.requireNonNull(interceptor, "interceptor");
        return request -> {
            RequestInterceptor.Verdict verdict = interceptor.intercept(new RequestInterceptor.Request(Api.of(request.api()),
                    request.version(), request.brokerId(), request.clientId(), request.correlationId(), request.topics()));
            return verdict == null ? null : verdict.toFault();
        };
    }

    /**
     * Samsa's own tests of its failure handling: the next request of {@code api} meets {@code error} on its
     * connection's thread, as a bug would. Not public: a user's test has no use for a broken broker.
     */
    Faults failNextUnexpectedly(Api api, Error error) {
        state.faults().failNextUnexpectedly(api.toApiKey(), error);
        return this;
    }

    /**
     * Stops the follower on {@code brokerId} from fetching {@code topic}-{@code partition}; it leaves the ISR once it
     * has not been caught up for replica.lag.time.max.ms of cluster time.
     */
    public Faults pauseReplication(String topic, int partition, int brokerId) {
        loop.call(() -> {
            Partition p = follower(topic, partition, brokerId);
            state.fetcher().pause(p, brokerId);
            state.timeline().record(new ReplicationPaused(p.topic().name(), p.index(), brokerId));
            return null;
        });
        return this;
    }

    public Faults resumeReplication(String topic, int partition, int brokerId) {
        loop.call(() -> {
            Partition p = follower(topic, partition, brokerId);
            state.faults().resume(p.topicPartition(), brokerId);
            state.timeline().record(new ReplicationResumed(p.topic().name(), p.index(), brokerId));
            state.fetcher().replicateSoon(p);
            return null;
        });
        return this;
    }

    /**
     * Delays every response of {@code brokerId} by {@code latency} of wall time, replica fetches to and from it
     * included: a follower on it that falls behind for longer than replica.lag.time.max.ms of cluster time leaves the
     * ISR, and rejoins once caught up. Zero removes it.
     */
    public Faults latency(int brokerId, Duration latency) {
        cluster.broker(brokerId);
        loop.call(() -> {
            state.faults().setLatency(brokerId, latency.toMillis());
            state.timeline().record(new BrokerLatency(brokerId, latency));
            return null;
        });
        return this;
    }

    /**
     * Holds the transaction markers of {@code topic}-{@code partition}: a transaction that commits or aborts gets its
     * markers on its other partitions, but stays prepared with this one's queued, until
     * {@link #releaseTransactionMarkers(String, int)}. The window in which a crash tears a transaction.
     */
    public Faults holdTransactionMarkers(String topic, int partition) {
        loop.call(() -> {
            state.faults().txn().hold(existing(topic, partition).topicPartition());
            state.timeline().record(new TxnMarkersHeld(topic, partition, -1));
            return null;
        });
        return this;
    }

    /** Ends {@link #holdTransactionMarkers(String, int)}: the queued markers go to whoever leads the partition now. */
    public Faults releaseTransactionMarkers(String topic, int partition) {
        loop.call(() -> {
            TopicPartition tp = existing(topic, partition).topicPartition();
            List<Runnable> queued = state.faults().txn().release(tp);
            state.timeline().record(new TxnMarkersReleased(topic, partition, -1, queued.size()));
            queued.forEach(Runnable::run);
            return null;
        });
        return this;
    }

    /**
     * Holds the transaction markers of every partition broker {@code brokerId} leads when the marker is due, as a
     * coordinator that cannot reach that broker queues them: they wait, whoever leads later, until
     * {@link #releaseTransactionMarkers(int)}.
     */
    public Faults holdTransactionMarkers(int brokerId) {
        cluster.broker(brokerId);
        loop.call(() -> {
            state.faults().txn().holdLeader(brokerId);
            state.timeline().record(new TxnMarkersHeld(null, -1, brokerId));
            return null;
        });
        return this;
    }

    /** Ends {@link #holdTransactionMarkers(int)}: the queued markers go to whoever leads their partitions now. */
    public Faults releaseTransactionMarkers(int brokerId) {
        cluster.broker(brokerId);
        loop.call(() -> {
            List<Runnable> queued = state.faults().txn().releaseLeader(brokerId);
            state.timeline().record(new TxnMarkersReleased(null, -1, brokerId, queued.size()));
            queued.forEach(Runnable::run);
            return null;
        });
        return this;
    }

    /**
     * Crashes the transaction coordinator of {@code transactionalId} (as {@link Broker#crash()}) the moment it has
     * replicated the move to {@code when}, before it answers the client or writes a marker; once. With
     * {@link TxnState#PREPARE_COMMIT}, the next coordinator finds the decision in the log and finishes the commit.
     */
    public Faults crashTransactionCoordinator(String transactionalId, TxnState when) {
        return onTransactionState(transactionalId, when, "crash", Broker::crash);
    }

    /** As {@link #crashTransactionCoordinator}, but the coordinator is isolated (as {@link Broker#isolate()}). */
    public Faults isolateTransactionCoordinator(String transactionalId, TxnState when) {
        return onTransactionState(transactionalId, when, "isolate", Broker::isolate);
    }

    private Faults onTransactionState(String transactionalId, TxnState when, String action, Consumer<Broker> fault) {
        Objects.requireNonNull(transactionalId, "transactionalId");
        if (when == TxnState.DEAD || when == TxnState.PREPARE_EPOCH_FENCE) {
            throw new IllegalArgumentException("A transaction coordinator never replicates " + when
                    + " as a state of its own; choose another state");
        }
        loop.call(() -> {
            state.faults().txn().onState(transactionalId, when.toString(), brokerId -> {
                Broker coordinator = cluster.broker(brokerId);
                // A coordinator the test stopped meanwhile has nothing left to lose.
                if (coordinator.isRunning()) {
                    fault.accept(coordinator);
                }
            });
            state.timeline().record(new TxnCoordinatorFaultArmed(transactionalId, when.toString(), action));
            return null;
        });
        return this;
    }

    public Faults isolate(int brokerId) {
        cluster.broker(brokerId).isolate();
        return this;
    }

    public Faults heal(int brokerId) {
        cluster.broker(brokerId).heal();
        return this;
    }

    public Faults dropConnections(int brokerId) {
        cluster.broker(brokerId).dropConnections();
        return this;
    }

    /** {@link Broker#expireSaslSessions()}: the next request of each SASL connection to the broker closes it. */
    public Faults expireSaslSessions(int brokerId) {
        cluster.broker(brokerId).expireSaslSessions();
        return this;
    }

    /** {@link Broker#rotateCertificate()}: new TLS connections get a new certificate from the same CA. */
    public Faults rotateCertificate(int brokerId) {
        cluster.broker(brokerId).rotateCertificate();
        return this;
    }

    private Partition existing(String topic, int partition) {
        Partition p = state.metadata().partition(new TopicPartition(topic, partition));
        if (p == null) {
            throw new IllegalArgumentException("No partition " + topic + "-" + partition + " in this cluster");
        }
        return p;
    }

    private Partition follower(String topic, int partition, int brokerId) {
        Partition p = existing(topic, partition);
        if (!p.replicas().contains(brokerId)) {
            throw new IllegalArgumentException("Broker " + brokerId + " holds no replica of " + p.topicPartition()
                    + "; its replicas are " + p.replicas());
        }
        return p;
    }
}
