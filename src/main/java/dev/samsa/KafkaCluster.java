package dev.samsa;

import dev.samsa.cluster.BrokerConfigs;
import dev.samsa.cluster.BrokerInfo;
import dev.samsa.cluster.ClusterMetadata;
import dev.samsa.cluster.ClusterState;
import dev.samsa.cluster.DelayedOperations;
import dev.samsa.cluster.ProducerIdManager;
import dev.samsa.event.BrokerStarted;
import dev.samsa.event.ClusterStarted;
import dev.samsa.event.ClusterTimeline;
import dev.samsa.event.Timeline;
import dev.samsa.group.GroupCoordinator;
import dev.samsa.txn.TransactionCoordinator;
import dev.samsa.handler.Handlers;
import dev.samsa.log.LogFileUtils;
import dev.samsa.log.store.MappedStoreFactory;
import dev.samsa.log.store.MappedStores;
import dev.samsa.time.ClusterClock;
import dev.samsa.time.ClusterLoop;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An Apache Kafka cluster in this JVM, for tests: brokers on 127.0.0.1 that speak the real wire protocol, one
 * cluster clock and one seed.
 *
 * <pre>{@code
 * try (KafkaCluster cluster = KafkaCluster.builder().topic("orders", 3, 1).start()) {
 *     Map<String, Object> config = cluster.producerConfig();
 *     // new KafkaProducer<String, String>(config) ...
 * }
 * }</pre>
 */
public final class KafkaCluster implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(KafkaCluster.class);
    private static final AtomicInteger CLUSTER_NUMBERS = new AtomicInteger();

    private final long seed;
    private final Path dataDirectory;
    private final boolean deleteOnClose;
    private final ClusterLoop loop;
    private final ClusterState state;
    private final List<Broker> brokers;
    private final GroupCoordinator groupCoordinator;
    private final TransactionCoordinator transactionCoordinator;
    private final MappedStoreFactory stores;
    private final List<BrokerError> internalErrors = new java.util.concurrent.CopyOnWriteArrayList<>();
    private volatile boolean closed;

    private KafkaCluster(Builder builder) {
        // First, before anything that would need cleaning up if they fail (a codec that cannot run refuses the start):
        // the protocol schemas load on this thread while the probe loads chronicle on another.
        CompletableFuture<MappedStoreFactory> storeProbe = builder.stores != null
                ? CompletableFuture.completedFuture(builder.stores) : MappedStores.detectInBackground();
        Handlers handlers = Handlers.standard();
        this.stores = storeProbe.join();
        this.seed = builder.seed != null ? builder.seed : new Random().nextLong();
        this.deleteOnClose = builder.dataDirectory == null;
        this.dataDirectory = builder.dataDirectory != null ? builder.dataDirectory : createTempDirectory();
        String name = "samsa-" + CLUSTER_NUMBERS.incrementAndGet();
        this.loop = new ClusterLoop(name + "-loop", builder.clock, (brokerId, error) -> internalErrors.add(
                new BrokerError(brokerId, Thread.currentThread().getName(), builder.clock.instant(), error)));
        Timeline timeline = new Timeline(builder.clock::milliseconds, loop::wallMillis, builder.timelineCapacity);
        Random random = new Random(seed);
        List<Broker> started = new ArrayList<>();
        ClusterState created = null;
        try {
            created = loop.call(() -> {
                ClusterMetadata metadata = new ClusterMetadata(dataDirectory, stores, random, timeline, builder.clock::milliseconds);
                metadata.finalizeTransactionVersion(builder.transactionVersion);
                return new ClusterState(loop, metadata, new DelayedOperations(loop.scheduler()), new ProducerIdManager(metadata),
                        timeline, random, new java.util.EnumMap<>(org.apache.kafka.common.protocol.ApiKeys.class),
                        new dev.samsa.fault.FaultState());
            });
            this.state = created;
            timeline.record(new ClusterStarted(seed, builder.brokers));
            this.groupCoordinator = loop.call(() -> new GroupCoordinator(state));
            this.transactionCoordinator = loop.call(() -> new TransactionCoordinator(state));
            loop.call(() -> {
                groupCoordinator.useTransactionVerification(transactionCoordinator);
                return null;
            });
            Map<String, String> clusterDefaults = new HashMap<>();
            for (int id = 1; id <= builder.brokers; id++) {
                Map<String, String> configs = new LinkedHashMap<>(builder.brokerConfigs);
                configs.put("broker.id", Integer.toString(id));
                configs.putIfAbsent("offsets.topic.replication.factor", Integer.toString(Math.min(3, builder.brokers)));
                configs.putIfAbsent("transaction.state.log.replication.factor", Integer.toString(Math.min(3, builder.brokers)));
                if (builder.clock.isManual()) {
                    // Clients stamp records with wall time; a manual clock set in the past must not call them future.
                    configs.putIfAbsent("log.message.timestamp.after.max.ms", Long.toString(Long.MAX_VALUE));
                }
                BrokerConfigs brokerConfigs = new BrokerConfigs(configs, clusterDefaults);
                int port = builder.basePort == 0 ? 0 : builder.basePort + id - 1;
                Broker broker = new Broker(id, name + "-broker-" + id, port, state, handlers, groupCoordinator, transactionCoordinator,
                        brokerConfigs.getInt("socket.request.max.bytes"));
                started.add(broker);
                int brokerId = id;
                String rack = builder.racks.get(id);
                loop.call(() -> {
                    state.metadata().registerBroker(new BrokerInfo(brokerId, "127.0.0.1", broker.port(), rack), brokerConfigs);
                    timeline.record(new BrokerStarted(brokerId));
                    return null;
                });
            }
            loop.call(() -> {
                state.metadata().loadTopics();
                for (TopicSpec t : builder.topics) {
                    if (state.metadata().topic(t.name) == null) {
                        try {
                            state.metadata().createTopic(t.name, t.partitions, t.replicationFactor, List.of(), t.configs, false);
                        } catch (org.apache.kafka.common.errors.ApiException e) {
                            throw new IllegalArgumentException("Cannot create topic '" + t.name + "': " + e.getMessage(), e);
                        }
                    }
                }
                state.controller().activate();
                return null;
            });
        } catch (IOException e) {
            abandonStart(started, created);
            throw new UncheckedIOException(e);
        } catch (RuntimeException | Error e) {
            abandonStart(started, created);
            throw e;
        }
        this.brokers = Collections.unmodifiableList(started);
        log.info("Samsa cluster started: bootstrap.servers={} seed={} dir={}", bootstrapServers(), seed, dataDirectory);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** "127.0.0.1:p1,127.0.0.1:p2,...", one address per broker. */
    public String bootstrapServers() {
        return brokers.stream().map(Broker::address).collect(Collectors.joining(","));
    }

    /** Ready-made producer settings: bootstrap servers and String serializers. */
    public Map<String, Object> producerConfig() {
        Map<String, Object> config = new HashMap<>();
        config.put("bootstrap.servers", bootstrapServers());
        config.put("key.serializer", "org.apache.kafka.common.serialization.StringSerializer");
        config.put("value.serializer", "org.apache.kafka.common.serialization.StringSerializer");
        return config;
    }

    /** Ready-made consumer settings: bootstrap servers, the group, String deserializers, reading from the earliest. */
    public Map<String, Object> consumerConfig(String groupId) {
        Map<String, Object> config = new HashMap<>();
        config.put("bootstrap.servers", bootstrapServers());
        if (groupId != null) {
            config.put("group.id", groupId);
        }
        config.put("auto.offset.reset", "earliest");
        config.put("key.deserializer", "org.apache.kafka.common.serialization.StringDeserializer");
        config.put("value.deserializer", "org.apache.kafka.common.serialization.StringDeserializer");
        return config;
    }

    public Map<String, Object> adminConfig() {
        Map<String, Object> config = new HashMap<>();
        config.put("bootstrap.servers", bootstrapServers());
        return config;
    }

    public void createTopic(String name, int partitions, int replicationFactor) {
        createTopic(name, partitions, replicationFactor, Map.of());
    }

    /**
     * Creates a topic with config overrides.
     *
     * @throws IllegalArgumentException naming the problem when Kafka would refuse the topic
     */
    public void createTopic(String name, int partitions, int replicationFactor, Map<String, String> configs) {
        try {
            loop.call(() -> state.metadata().createTopic(name, partitions, replicationFactor, List.of(), configs, false));
        } catch (org.apache.kafka.common.errors.ApiException e) {
            throw new IllegalArgumentException("Cannot create topic '" + name + "': " + e.getMessage(), e);
        }
    }

    public List<Broker> brokers() {
        return brokers;
    }

    /** Broker by id, starting at 1. */
    public Broker broker(int id) {
        if (id < 1 || id > brokers.size()) {
            throw new IllegalArgumentException("No broker " + id + "; this cluster has brokers 1.." + brokers.size());
        }
        return brokers.get(id - 1);
    }

    /** Requests of one API handled by all brokers since start (ApiKeys name, e.g. "FETCH"). */
    long requestsHandled(String apiKey) {
        return loop.call(() -> state.requestCounts().getOrDefault(org.apache.kafka.common.protocol.ApiKeys.valueOf(apiKey), 0L));
    }

    /** Requests parked as delayed operations right now (fetch long-polls, acks=all produces). */
    int parkedRequests() {
        return loop.call(() -> state.purgatory().parked());
    }

    /** A live view of one partition: leader, ISR, high watermark, each replica's log end offset. */
    public PartitionView partition(String topic, int partition) {
        return new PartitionView(loop, state, topic, partition);
    }

    /** Faults applied to the cluster as a whole; per-broker faults are on {@link #broker(int)}. */
    public Faults faults() {
        return new Faults(this, loop, state);
    }

    /** Cuts the power of every broker at once, then brings them all back in id order. */
    public void powerLossAndRestart() {
        brokers.forEach(Broker::powerLoss);
        brokers.forEach(Broker::restart);
    }

    /**
     * A snapshot of consumer group {@code groupId}, computed on the cluster loop: state, generation, members with their
     * assignments, committed offsets and lag. A group that does not exist is reported Dead with no members.
     */
    public ConsumerGroup group(String groupId) {
        return loop.call(() -> ConsumerGroup.snapshot(groupId, groupCoordinator, state));
    }

    public ClusterClock clock() {
        return loop.clock();
    }

    /** The timeline: the most recent events (see {@link Builder#timelineCapacity}), and how many came before them. */
    public ClusterTimeline events() {
        return state.timeline();
    }

    /**
     * The unexpected failures the brokers met so far, oldest first (empty in a healthy run). Each was logged, its
     * request answered with UNKNOWN_SERVER_ERROR or its connection closed, and the cluster kept serving; a test that
     * wants to know calls this, and the JUnit extension fails the test during which one happened.
     */
    public List<BrokerError> internalErrors() {
        return List.copyOf(internalErrors);
    }

    public long seed() {
        return seed;
    }

    public Path dataDirectory() {
        return dataDirectory;
    }

    /** Closes listeners and logs; deletes the data directory unless the builder was given one. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        release(brokers, state);
    }

    /**
     * Closes listeners, logs and the loop, waits until the stores let go of their files, and deletes a temporary
     * data directory: what close() does, and what a start that failed half-way does with what it had started.
     */
    private void release(List<Broker> started, ClusterState created) {
        started.forEach(Broker::close);
        try {
            if (created != null) {
                loop.call(() -> {
                    created.metadata().close();
                    return null;
                });
            }
        } finally {
            loop.close();
            stores.awaitReleased();
            if (deleteOnClose) {
                try {
                    LogFileUtils.deleteRecursively(dataDirectory);
                } catch (IOException e) {
                    log.warn("Could not delete data directory {}: {}", dataDirectory, e.toString());
                }
            }
        }
    }

    /** A start that failed half-way leaves nothing behind: no listener, no thread, no mapped file, no directory. */
    private void abandonStart(List<Broker> started, ClusterState created) {
        try {
            release(started, created);
        } catch (RuntimeException e) {
            // The start's own failure is what the caller should see.
            log.warn("Cleaning up after a cluster that failed to start: {}", e.toString());
        }
    }

    private static Path createTempDirectory() {
        try {
            return Files.createTempDirectory("samsa-");
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create a temporary data directory", e);
        }
    }

    private record TopicSpec(String name, int partitions, int replicationFactor, Map<String, String> configs) {
    }

    /** Builds a cluster; every setting has a test-friendly default. */
    public static final class Builder {
        private int brokers = 1;
        private ClusterClock clock = ClusterClock.system();
        private Long seed;
        private final Map<String, String> brokerConfigs = new LinkedHashMap<>();
        private final List<TopicSpec> topics = new ArrayList<>();
        private Path dataDirectory;
        private int basePort;
        private MappedStoreFactory stores;
        private final Map<Integer, String> racks = new HashMap<>();
        private int timelineCapacity = Timeline.DEFAULT_CAPACITY;
        private short transactionVersion = ClusterMetadata.LATEST_TRANSACTION_VERSION;

        private Builder() {
        }

        public Builder brokers(int count) {
            if (count < 1) {
                throw new IllegalArgumentException("A cluster needs at least one broker; got brokers(" + count + ")");
            }
            this.brokers = count;
            return this;
        }

        public Builder clock(ClusterClock clock) {
            this.clock = java.util.Objects.requireNonNull(clock, "clock");
            return this;
        }

        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        /**
         * Any broker config Kafka knows, for every broker.
         *
         * @throws IllegalArgumentException for an unknown name or a value of the wrong type
         */
        public Builder brokerConfig(String name, String value) {
            try {
                BrokerConfigs.validate(name, value);
            } catch (org.apache.kafka.common.config.ConfigException e) {
                throw new IllegalArgumentException(e.getMessage(), e);
            }
            brokerConfigs.put(name, value);
            return this;
        }

        public Builder topic(String name, int partitions, int replicationFactor) {
            return topic(name, partitions, replicationFactor, Map.of());
        }

        public Builder topic(String name, int partitions, int replicationFactor, Map<String, String> configs) {
            topics.add(new TopicSpec(name, partitions, replicationFactor, Map.copyOf(configs)));
            return this;
        }

        /** Puts broker {@code brokerId} in {@code rack}, as broker.rack does. */
        public Builder rack(int brokerId, String rack) {
            racks.put(brokerId, rack);
            return this;
        }

        /** Keeps data in {@code dir}, which survives close: a cluster started again on it finds its topics and records. */
        public Builder dataDirectory(Path dir) {
            this.dataDirectory = dir;
            return this;
        }

        /** First broker port; broker n listens on {@code port + n - 1}. 0 (the default) picks free ports. */
        public Builder port(int port) {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("Port must be 0..65535; got " + port);
            }
            this.basePort = port;
            return this;
        }

        /**
         * How many of the most recent events the timeline keeps (default {@value Timeline#DEFAULT_CAPACITY}, far more
         * than an ordinary test records). Older events are dropped and counted; the printed timeline says how many.
         */
        public Builder timelineCapacity(int events) {
            if (events < 1) {
                throw new IllegalArgumentException("The timeline keeps at least one event; got timelineCapacity(" + events + ")");
            }
            this.timelineCapacity = events;
            return this;
        }

        /**
         * The cluster's finalized {@code transaction.version} feature, as {@code kafka-storage format --feature
         * transaction.version=N} sets it on a real cluster (it is a feature, not a broker config). The default, 2, is
         * what a fresh Kafka 4.1 cluster has: clients then use KIP-890's protocol (no AddPartitionsToTxn for produced
         * partitions, an epoch bump on every commit and abort). 0 and 1 keep Kafka 3.x's protocol (1 differs from 0
         * only in the format of Kafka's own __transaction_state records). The clients learn the level from ApiVersions.
         *
         * @throws IllegalArgumentException for a level other than 0, 1 or 2
         */
        public Builder transactionVersion(int level) {
            if (level < 0 || level > ClusterMetadata.LATEST_TRANSACTION_VERSION) {
                throw new IllegalArgumentException("transaction.version must be 0, 1 or 2 (Kafka 4.1's TransactionVersion "
                        + "levels); got transactionVersion(" + level + ")");
            }
            this.transactionVersion = (short) level;
            return this;
        }

        Builder stores(MappedStoreFactory stores) {
            this.stores = stores;
            return this;
        }

        /**
         * @throws IllegalArgumentException naming a topic Kafka would refuse
         * @throws UncheckedIOException when a broker cannot listen on its port or the data directory cannot be used
         */
        public KafkaCluster start() {
            return new KafkaCluster(this);
        }
    }
}
