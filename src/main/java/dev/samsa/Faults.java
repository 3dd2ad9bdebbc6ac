package dev.samsa;

import dev.samsa.cluster.ClusterState;
import dev.samsa.cluster.Partition;
import dev.samsa.event.BrokerLatency;
import dev.samsa.event.FailuresScheduled;
import dev.samsa.event.ReplicationPaused;
import dev.samsa.event.ReplicationResumed;
import dev.samsa.time.ClusterLoop;
import java.time.Duration;
import org.apache.kafka.common.TopicPartition;

/**
 * Faults a test applies to the cluster. Each one applied or healed is an event on the timeline. Per-broker faults
 * (crash, power loss, isolation) are on {@link Broker}.
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

    /** Answers the next {@code count} requests of {@code api}, to any broker, with {@code error}. */
    public Faults failNext(Api api, KafkaError error, int count) {
        if (count <= 0) {
            throw new IllegalArgumentException("count must be positive; got " + count);
        }
        loop.call(() -> {
            state.faults().failNext(api.toApiKey(), error.toErrors(), count);
            state.timeline().record(new FailuresScheduled(api.toString(), error.toString(), count));
            return null;
        });
        return this;
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
            state.faults().pause(p.topicPartition(), brokerId);
            state.controller().followerStalled(p, brokerId);
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

    /** Delays every response of {@code brokerId} by {@code latency} of wall time; zero removes it. */
    public Faults latency(int brokerId, Duration latency) {
        cluster.broker(brokerId);
        loop.call(() -> {
            state.faults().setLatency(brokerId, latency.toMillis());
            state.timeline().record(new BrokerLatency(brokerId, latency));
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

    private Partition follower(String topic, int partition, int brokerId) {
        Partition p = state.metadata().partition(new TopicPartition(topic, partition));
        if (p == null) {
            throw new IllegalArgumentException("No partition " + topic + "-" + partition + " in this cluster");
        }
        if (!p.replicas().contains(brokerId)) {
            throw new IllegalArgumentException("Broker " + brokerId + " holds no replica of " + p.topicPartition()
                    + "; its replicas are " + p.replicas());
        }
        return p;
    }
}
