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
import dev.samsa.network.FrameLimits;
import dev.samsa.security.ClientStores;
import dev.samsa.security.ClusterSecurity;
import dev.samsa.security.OAuthBearerValidator;
import dev.samsa.time.ClusterClock;
import dev.samsa.time.ClusterLoop;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.apache.kafka.common.TopicPartition;
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
    private final ClusterSecurity security;
    private final Security securitySpec;
    /** PKCS12 stores client configs point at, under the data directory; written on first use. */
    private final ClientStores clientStores;
    private final List<BrokerError> internalErrors = new java.util.concurrent.CopyOnWriteArrayList<>();
    private volatile boolean closed;

    private KafkaCluster(Builder builder) {
        // First, before anything that would need cleaning up if they fail (a codec that cannot run refuses the start):
        // the protocol schemas load on this thread while the probe loads chronicle on another.
        CompletableFuture<MappedStoreFactory> storeProbe = builder.stores != null
                ? CompletableFuture.completedFuture(builder.stores) : MappedStores.detectInBackground();
        Handlers handlers = Handlers.standard();
        this.stores = MappedStores.forOneCluster(storeProbe.join());
        this.seed = builder.seed != null ? builder.seed : new Random().nextLong();
        this.deleteOnClose = builder.dataDirectory == null;
        this.dataDirectory = builder.dataDirectory != null ? builder.dataDirectory : createTempDirectory();
        String name = "samsa-" + CLUSTER_NUMBERS.incrementAndGet();
        this.securitySpec = builder.security;
        this.clientStores = new ClientStores(dataDirectory.resolve("client-stores"));
        this.security = builder.security == null ? ClusterSecurity.plaintext() : clusterSecurity(name, builder.security,
                Long.parseLong(builder.brokerConfigs.getOrDefault("connections.max.reauth.ms", "0")),
                dataDirectory.resolve("metadata").resolve("acls.properties"));
        if (builder.security != null) {
            security.keepScramCredentialsIn(dataDirectory.resolve("metadata").resolve("scram-credentials.properties"));
        }
        this.loop = new ClusterLoop(name + "-loop", builder.clock, (brokerId, error) -> internalErrors.add(
                new BrokerError(brokerId, Thread.currentThread().getName(), builder.clock.instant(), error)));
        Timeline timeline = new Timeline(builder.clock::milliseconds, loop::wallMillis, builder.timelineCapacity);
        timeline.runTriggersWith(loop::runNext);
        Random random = new Random(seed);
        List<Broker> started = new ArrayList<>();
        ClusterState created = null;
        try {
            // Two trips to the loop in all (one to build the domain, one to register the bound brokers and start the
            // controller): each trip is a thread hand-off, and a start is mostly hand-offs.
            Domain domain = loop.call(() -> {
                ClusterMetadata metadata = new ClusterMetadata(dataDirectory, !deleteOnClose, stores, random, timeline,
                        builder.clock::milliseconds);
                metadata.finalizeTransactionVersion(builder.transactionVersion);
                ClusterState cluster = new ClusterState(loop, metadata, new DelayedOperations(loop.scheduler()),
                        new ProducerIdManager(metadata), timeline, random,
                        new java.util.EnumMap<>(org.apache.kafka.common.protocol.ApiKeys.class), new dev.samsa.fault.FaultState());
                cluster.produceHistory().enabled(builder.history);
                cluster.consumerHistory().enabled(builder.history);
                timeline.record(new ClusterStarted(seed, builder.brokers));
                return new Domain(cluster, new GroupCoordinator(cluster), new TransactionCoordinator(cluster));
            });
            created = domain.state();
            this.state = created;
            ClusterState checked = created;
            timeline.findingsFrom(() -> {
                try {
                    return loop.call(() -> History.check(checked).findings());
                } catch (IllegalStateException closed) {
                    return List.of(); // the cluster has closed: the page shows the events without the history check
                }
            });
            this.groupCoordinator = domain.groups();
            this.transactionCoordinator = domain.transactions();
            Map<String, String> clusterDefaults = new HashMap<>();
            List<BrokerInfo> infos = new ArrayList<>();
            List<BrokerConfigs> infoConfigs = new ArrayList<>();
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
                List<Integer> ports = new ArrayList<>();
                for (int l = 0; l < security.protocols().size(); l++) {
                    ports.add(builder.basePort == 0 ? 0 : builder.basePort + l * builder.brokers + id - 1);
                }
                Broker broker = new Broker(id, name + "-broker-" + id, ports, state, handlers, groupCoordinator,
                        transactionCoordinator, new FrameLimits(brokerConfigs.getInt("socket.request.max.bytes"),
                        brokerConfigs.getInt("sasl.server.max.receive.size")), security);
                started.add(broker);
                infos.add(new BrokerInfo(id, "127.0.0.1", broker.port(), builder.racks.get(id)));
                infoConfigs.add(brokerConfigs);
            }
            loop.call(() -> {
                for (int i = 0; i < infos.size(); i++) {
                    state.metadata().registerBroker(infos.get(i), infoConfigs.get(i));
                    timeline.record(new BrokerStarted(infos.get(i).id()));
                }
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

    /** What the first trip to the loop builds. */
    private record Domain(ClusterState state, GroupCoordinator groups, TransactionCoordinator transactions) {
    }

    public static Builder builder() {
        return new Builder();
    }

    private static ClusterSecurity clusterSecurity(String clusterName, Security spec, long maxReauthenticationMs,
                                                   Path aclFile) {
        return new ClusterSecurity(clusterName,
                spec.listeners().stream().map(Security.Protocol::toSecurityProtocol).toList(),
                spec.mechanisms().stream().map(Security.Mechanism::mechanismName).toList(),
                spec.users(), spec.isMutualTls(), spec.principalMappingRules(), maxReauthenticationMs,
                spec.aclsEnabled() ? new dev.samsa.security.Authorizer(true, spec.superUsers(),
                        spec.isAllowEveryoneIfNoAclFound(), spec.acls(), aclFile) : dev.samsa.security.Authorizer.disabled(),
                new OAuthBearerValidator.Settings(spec.oauthBearerKey(), spec.oauthBearerRequiredScope()),
                spec.brokerKeyStore());
    }

    /** "127.0.0.1:p1,127.0.0.1:p2,...", one address per broker, on the cluster's first listener. */
    public String bootstrapServers() {
        return brokers.stream().map(Broker::address).collect(Collectors.joining(","));
    }

    /**
     * The addresses of the listener for {@code protocol}.
     *
     * @throws IllegalArgumentException if the cluster has no such listener
     */
    public String bootstrapServers(Security.Protocol protocol) {
        return brokers.stream().map(b -> b.address(protocol)).collect(Collectors.joining(","));
    }

    /**
     * What any client needs to connect as {@code user}: bootstrap.servers of the cluster's first SASL listener (or,
     * without one, its first listener), security.protocol, and as that listener needs them sasl.mechanism,
     * sasl.jaas.config, a PEM truststore with the cluster's CA, and for mutual TLS a PEM keystore with a client
     * certificate for {@code CN=<user>}. A null user asks for a listener that needs no identity.
     *
     * @throws IllegalArgumentException for a SASL user the cluster was not given a password for: use
     *     {@link #clientConfig(String, String)} for users created at run time
     */
    public Map<String, Object> clientConfig(String user) {
        return clientConfig(defaultProtocol(user), user, user == null ? null : securitySpec == null ? null
                : securitySpec.users().get(user));
    }

    /** {@link #clientConfig(String)} for a user whose password the cluster does not know (created by an admin client). */
    public Map<String, Object> clientConfig(String user, String password) {
        return clientConfig(defaultProtocol(user), user, Objects.requireNonNull(password, "password"));
    }

    /** {@link #clientConfig(String)} on the listener of {@code protocol}. */
    public Map<String, Object> clientConfig(Security.Protocol protocol, String user) {
        return clientConfig(protocol, user, user == null || securitySpec == null ? null : securitySpec.users().get(user));
    }

    private Map<String, Object> clientConfig(Security.Protocol protocol, String user, String password) {
        Map<String, Object> config = new HashMap<>();
        config.put("bootstrap.servers", bootstrapServers(protocol));
        if (protocol == Security.Protocol.PLAINTEXT) {
            return config;
        }
        config.put("security.protocol", protocol.name());
        if (protocol.usesTls()) {
            config.putAll(tlsConfig(protocol, user));
        }
        if (protocol.usesSasl() && securitySpec.mechanisms().get(0) == Security.Mechanism.OAUTHBEARER) {
            config.putAll(oauthBearerLogin(protocol, user));
        } else if (protocol.usesSasl()) {
            if (user == null || password == null) {
                throw new IllegalArgumentException("The " + protocol + " listener needs a SASL user; "
                        + (user == null ? "name one" : "this cluster has no password for '" + user
                        + "': pass it with clientConfig(user, password)"));
            }
            Security.Mechanism mechanism = securitySpec.mechanisms().get(0);
            String module = clientsClass(mechanism == Security.Mechanism.PLAIN
                    ? "common.security.plain.PlainLoginModule" : "common.security.scram.ScramLoginModule");
            config.put("sasl.mechanism", mechanism.mechanismName());
            config.put("sasl.jaas.config", module + " required username=\"" + jaasQuoted(user) + "\" password=\""
                    + jaasQuoted(password) + "\";");
        }
        return config;
    }

    /**
     * A class of the user's own kafka-clients, as a client config names it. Spelt in pieces because the packaged jar
     * relocates its copy of kafka-clients and rewrites every string constant that starts with org.apache.kafka: a
     * whole name here would send the user's client to Samsa's relocated login module (a ClassCastException for
     * OAUTHBEARER's callback handler) and write into the launcher's client.properties a class no other JVM has.
     */
    private static String clientsClass(String name) {
        return String.join(".", "org", "apache", "kafka", name);
    }

    /** The truststore, and for mutual TLS the keystore, as PEM strings or as PKCS12 files (Security.clientStores). */
    private Map<String, Object> tlsConfig(Security.Protocol protocol, String user) {
        Map<String, Object> config = new HashMap<>();
        boolean pkcs12 = securitySpec.clientStoreType() == Security.StoreType.PKCS12;
        if (pkcs12) {
            config.put("ssl.truststore.type", "PKCS12");
            config.put("ssl.truststore.location", clientStores.truststore(security.trustAnchor()).toString());
            config.put("ssl.truststore.password", ClientStores.PASSWORD);
        } else {
            config.put("ssl.truststore.type", "PEM");
            config.put("ssl.truststore.certificates", security.truststorePem());
        }
        if (security.mutualTls()) {
            if (user == null) {
                throw new IllegalArgumentException("The " + protocol + " listener requires client certificates: name a "
                        + "user, whose certificate's subject is CN=<user>");
            }
            var identity = security.clientIdentity(user);
            if (pkcs12) {
                config.put("ssl.keystore.type", "PKCS12");
                config.put("ssl.keystore.location", clientStores.keystore(user, identity).toString());
                config.put("ssl.keystore.password", ClientStores.PASSWORD);
                config.put("ssl.key.password", ClientStores.PASSWORD);
            } else {
                config.put("ssl.keystore.type", "PEM");
                config.put("ssl.keystore.certificate.chain", identity.chainPem());
                config.put("ssl.keystore.key", identity.keyPem());
            }
        }
        return config;
    }

    /**
     * OAUTHBEARER's login: Kafka's unsecured login callback handler makes a token whose {@code sub} is the user; with a
     * validation key the test's own sasl.login.callback.handler.class must supply a signed token.
     */
    private Map<String, Object> oauthBearerLogin(Security.Protocol protocol, String user) {
        Map<String, Object> config = new HashMap<>();
        config.put("sasl.mechanism", Security.Mechanism.OAUTHBEARER.mechanismName());
        String module = clientsClass("common.security.oauthbearer.OAuthBearerLoginModule") + " required";
        if (securitySpec.oauthBearerKey() != null) {
            config.put("sasl.jaas.config", module + ";");
            return config;
        }
        if (user == null) {
            throw new IllegalArgumentException("The " + protocol + " listener needs a SASL user: name the token's subject");
        }
        List<String> scope = securitySpec.oauthBearerRequiredScope();
        config.put("sasl.jaas.config", module + " unsecuredLoginStringClaim_sub=\"" + jaasQuoted(user) + "\""
                + (scope.isEmpty() ? "" : " unsecuredLoginListClaim_scope=\"," + jaasQuoted(String.join(",", scope)) + "\"")
                + ";");
        return config;
    }

    private static String jaasQuoted(String value) {
        return value.replace("\\", "\\\\").replace("\"", "\\\"");
    }

    /** A user's listener: the first SASL one, else the first; without a user, the first that needs no identity. */
    private Security.Protocol defaultProtocol(String user) {
        if (securitySpec == null) {
            return Security.Protocol.PLAINTEXT;
        }
        List<Security.Protocol> listeners = securitySpec.listeners();
        if (user != null) {
            return listeners.stream().filter(Security.Protocol::usesSasl).findFirst().orElse(listeners.get(0));
        }
        return listeners.stream()
                .filter(p -> p == Security.Protocol.PLAINTEXT || p == Security.Protocol.SSL && !securitySpec.isMutualTls())
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("Every listener of this cluster (" + listeners
                        + ") needs a user: ask for the config of one, e.g. producerConfig(user)"));
    }

    /** Ready-made producer settings: bootstrap servers and String serializers. */
    public Map<String, Object> producerConfig() {
        return producerConfig(null);
    }

    /** {@link #producerConfig()} for {@code user}, on its listener (see {@link #clientConfig(String)}). */
    public Map<String, Object> producerConfig(String user) {
        Map<String, Object> config = clientConfig(user);
        config.put("key.serializer", "org.apache.kafka.common.serialization.StringSerializer");
        config.put("value.serializer", "org.apache.kafka.common.serialization.StringSerializer");
        return config;
    }

    /** Ready-made consumer settings: bootstrap servers, the group, String deserializers, reading from the earliest. */
    public Map<String, Object> consumerConfig(String groupId) {
        return consumerConfig(null, groupId);
    }

    /** {@link #consumerConfig(String)} for {@code user}, on its listener (see {@link #clientConfig(String)}). */
    public Map<String, Object> consumerConfig(String user, String groupId) {
        Map<String, Object> config = clientConfig(user);
        if (groupId != null) {
            config.put("group.id", groupId);
        }
        config.put("auto.offset.reset", "earliest");
        config.put("key.deserializer", "org.apache.kafka.common.serialization.StringDeserializer");
        config.put("value.deserializer", "org.apache.kafka.common.serialization.StringDeserializer");
        return config;
    }

    public Map<String, Object> adminConfig() {
        return clientConfig(null);
    }

    /** Admin client settings for {@code user}: {@link #clientConfig(String)}. */
    public Map<String, Object> adminConfig(String user) {
        return clientConfig(user);
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

    /** Every topic's partition count, by name, internal topics ({@code __consumer_offsets}, ...) included. */
    public java.util.SortedMap<String, Integer> topics() {
        return loop.call(() -> {
            java.util.SortedMap<String, Integer> topics = new java.util.TreeMap<>();
            state.metadata().topics().forEach(t -> topics.put(t.name(), t.partitions().size()));
            return Collections.unmodifiableSortedMap(topics);
        });
    }

    /** The broker acting as controller (the lowest live id), or -1 while no broker runs. */
    public int controller() {
        return loop.call(() -> state.metadata().controllerId());
    }

    /**
     * The ids of the consumer groups the running brokers coordinate now, classic and consumer protocol, as Admin's
     * listGroups sees them: for {@link #group(String)}.
     */
    public java.util.SortedSet<String> groupIds() {
        return loop.call(() -> {
            java.util.SortedSet<String> ids = new java.util.TreeSet<>();
            for (Broker b : brokers) {
                if (b.isRunning()) {
                    groupCoordinator.listGroups(b.id()).forEach(g -> ids.add(g.groupId()));
                    groupCoordinator.listConsumerGroups(b.id()).forEach(g -> ids.add(g.groupId()));
                }
            }
            return Collections.unmodifiableSortedSet(ids);
        });
    }

    /**
     * The broker coordinating group {@code groupId}: the leader of its {@code __consumer_offsets} partition, as
     * FindCoordinator answers; -1 before that topic exists or while the partition has no leader. A pure read.
     */
    public int groupCoordinator(String groupId) {
        return loop.call(() -> {
            TopicPartition tp = groupCoordinator.offsetsPartition(groupId);
            dev.samsa.cluster.Partition p = tp == null ? null : state.metadata().partition(tp);
            return p == null ? -1 : p.leader();
        });
    }

    /** The transactional ids the running brokers coordinate now, as Admin's listTransactions sees them. */
    public java.util.SortedSet<String> transactionalIds() {
        return loop.call(() -> {
            java.util.SortedSet<String> ids = new java.util.TreeSet<>();
            for (Broker b : brokers) {
                if (b.isRunning()) {
                    transactionCoordinator.coordinatedBy(b.id()).forEach(t -> ids.add(t.transactionalId()));
                }
            }
            return Collections.unmodifiableSortedSet(ids);
        });
    }

    /** A live view of one partition: leader, ISR, high watermark, each replica's log end offset. */
    public PartitionView partition(String topic, int partition) {
        return new PartitionView(loop, state, topic, partition);
    }

    /**
     * Runs a full log-cleaning pass now on every replica of compacted topic {@code topic}, whatever its dirty ratio
     * and compaction lags, as the background cleaner would once they allowed: each key keeps its latest record at its
     * original offset, tombstones past delete.retention.ms go. The active segment is never cleaned; roll it first
     * ({@link #rollSegments}) to clean everything. Records a {@code Compacted} event per replica. A topic whose
     * cleanup.policy lacks "compact" is left as it is.
     *
     * @return the records removed, over all replicas
     */
    public long compact(String topic) {
        return loop.call(() -> state.logCleaner().compact(topic, -1));
    }

    /** {@link #compact(String)} for one partition. */
    public long compact(String topic, int partition) {
        if (partition < 0) {
            throw new IllegalArgumentException("No partition " + partition + " of topic " + topic);
        }
        return loop.call(() -> state.logCleaner().compact(topic, partition));
    }

    /** Starts a new active segment on every replica of {@code topic}, as segment.ms would, so that all may be cleaned. */
    public void rollSegments(String topic) {
        loop.call(() -> {
            state.logCleaner().rollSegments(topic);
            return null;
        });
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

    /**
     * A snapshot of transactional id {@code transactionalId} at its coordinator, computed on the cluster loop: state,
     * producer id and epoch, partitions, the offsets it holds pending and its start time. An id the cluster does not
     * know is reported Dead. A pure read: it never loads a coordinator or arms a timer.
     */
    public TransactionView transaction(String transactionalId) {
        return loop.call(() -> TransactionView.snapshot(transactionalId, transactionCoordinator, groupCoordinator));
    }

    public ClusterClock clock() {
        return loop.clock();
    }

    /**
     * What the brokers acknowledged to producers, checked now against the logs: lost acknowledged records (with the
     * fault events around them), batches one idempotent producer wrote twice, acknowledged sequences out of order;
     * and per consumer group, records delivered twice and records skipped. Empty when the builder switched the history
     * off ({@link Builder#history(boolean)}).
     */
    public History history() {
        return loop.call(() -> History.check(state));
    }

    /**
     * Tells the history that a member of {@code groupId} finished processing the record at {@code offset} of
     * {@code topic}-{@code partition}; call it from the processing code once a record is done. The broker sees what it
     * sent, not what the application did with it: a group that reports its processing is judged by it, so a record
     * whose offset the group committed while no member processed it (auto-commit, then the processing thread failed)
     * is reported skipped by {@code history().group(groupId)}. Safe from any thread.
     */
    public void recordProcessed(String groupId, String topic, int partition, long offset) {
        TopicPartition tp = new TopicPartition(topic, partition);
        loop.call(() -> {
            state.consumerHistory().processed(groupId, tp, offset);
            return null;
        });
    }

    /** The cluster's state, for the public tools of this package that run on its loop (a fault schedule). */
    ClusterState state() {
        return state;
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
                    deleteDataDirectory();
                } catch (IOException e) {
                    log.warn("Could not delete data directory {}: {}", dataDirectory, e.toString());
                }
            }
        }
    }

    /** A cluster that never created a topic left its directory empty: one rmdir, no walk. */
    private void deleteDataDirectory() throws IOException {
        try {
            Files.deleteIfExists(dataDirectory);
        } catch (DirectoryNotEmptyException e) {
            LogFileUtils.deleteRecursively(dataDirectory);
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
        private boolean history = true;
        private short transactionVersion = ClusterMetadata.LATEST_TRANSACTION_VERSION;
        private Security security;

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
        /**
         * Whether the brokers record every acknowledged produce for {@link KafkaCluster#history()} (default on; a
         * bounded record of about 100 bytes per batch).
         */
        public Builder history(boolean record) {
            this.history = record;
            return this;
        }

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

        /**
         * Listeners, SASL users and TLS for every broker (see {@link Security}); without it each broker has one
         * PLAINTEXT listener.
         */
        public Builder security(Security security) {
            this.security = Objects.requireNonNull(security, "security");
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
