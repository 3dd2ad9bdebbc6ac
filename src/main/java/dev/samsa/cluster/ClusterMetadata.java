package dev.samsa.cluster;

import dev.samsa.event.PartitionsCreated;
import dev.samsa.event.Timeline;
import dev.samsa.event.TopicCreated;
import dev.samsa.event.TopicDeleted;
import dev.samsa.log.LogConfig;
import dev.samsa.log.LogFileUtils;
import dev.samsa.log.PartitionLog;
import dev.samsa.log.store.MappedStoreFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.LongSupplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.InvalidReplicaAssignmentException;
import org.apache.kafka.common.errors.InvalidReplicationFactorException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * The controller's view: brokers, topics, partitions and their replica logs, kept through {@link MetadataStore} in a file per
 * topic so that a cluster reopened on the same directory finds its topics again. Owned by the cluster loop.
 */
public final class ClusterMetadata {

    /** Kafka's {@code ReplicationControlManager.MAX_PARTITIONS_PER_BATCH}, for CreateTopics and CreatePartitions. */
    public static final int MAX_PARTITIONS_PER_REQUEST = 10_000;
    public static final String TOO_MANY_PARTITIONS = "Excessively large number of partitions per request.";

    private final Path dataDir;
    private final MappedStoreFactory stores;
    private final Random random;
    private final Timeline timeline;
    private final LongSupplier clock;
    private final MetadataStore store;
    private final String clusterId;
    private final Map<Integer, BrokerInfo> brokers = new TreeMap<>();
    private final Set<Integer> alive = new TreeSet<>();
    private final Map<Integer, BrokerConfigs> brokerConfigs = new HashMap<>();
    private final Map<String, Topic> topics = new TreeMap<>();
    private final Map<Uuid, Topic> topicsById = new HashMap<>();
    /** Kafka 4.1's {@code TransactionVersion.LATEST_PRODUCTION}. */
    public static final short LATEST_TRANSACTION_VERSION = 2;
    private short transactionVersion = LATEST_TRANSACTION_VERSION;
    /** Reassignments an earlier run left unfinished, until the controller resumes them. */
    private final Map<TopicPartition, List<Integer>> unfinishedReassignments = new LinkedHashMap<>();

    public ClusterMetadata(Path dataDir, MappedStoreFactory stores, Random random, Timeline timeline,
                           LongSupplier clusterTimeMs) {
        this(dataDir, true, stores, random, timeline, clusterTimeMs);
    }

    /**
     * @param durable false for a temporary data directory, deleted on close: the metadata is kept in memory only,
     *     since no later cluster will read it (see {@link MetadataStore})
     */
    public ClusterMetadata(Path dataDir, boolean durable, MappedStoreFactory stores, Random random, Timeline timeline,
                           LongSupplier clusterTimeMs) {
        this.dataDir = dataDir;
        this.stores = stores;
        this.random = random;
        this.timeline = timeline;
        this.clock = clusterTimeMs;
        this.store = new MetadataStore(dataDir, durable);
        String id = store.clusterProperty("cluster.id");
        if (id == null) {
            id = new Uuid(random.nextLong(), random.nextLong()).toString();
            store.storeClusterProperty("cluster.id", id);
        }
        this.clusterId = id;
    }

    public String clusterId() {
        return clusterId;
    }

    /**
     * The finalized {@code transaction.version} feature (0, 1 or 2), as Kafka's KRaft metadata holds it: 2
     * ({@code TransactionVersion.LATEST_PRODUCTION} of Kafka 4.1, what a freshly formatted cluster finalizes) unless
     * the cluster was built with another level. Clients read it from ApiVersions; at 2 they use KIP-890's protocol.
     */
    public short transactionVersion() {
        return transactionVersion;
    }

    /**
     * Finalizes {@code transaction.version} at {@code level}, as {@code kafka-storage format --feature} does.
     *
     * @throws IllegalArgumentException for a level outside 0..{@value #LATEST_TRANSACTION_VERSION}
     */
    public void finalizeTransactionVersion(short level) {
        if (level < 0 || level > LATEST_TRANSACTION_VERSION) {
            throw new IllegalArgumentException("transaction.version must be 0, 1 or 2 (Kafka 4.1's TransactionVersion "
                    + "levels); got " + level);
        }
        transactionVersion = level;
    }

    /**
     * Told of every leader change, after it is made, a new partition's first leader included (at creation and on
     * reopen): how coordinators learn to load or unload a partition.
     */
    public interface LeadershipListener {
        void leaderChanged(Partition partition, int oldLeader, int newLeader);
    }

    private final List<LeadershipListener> leadershipListeners = new ArrayList<>();

    public void addLeadershipListener(LeadershipListener listener) {
        leadershipListeners.add(listener);
    }

    void leaderChanged(Partition partition, int oldLeader, int newLeader) {
        for (LeadershipListener l : leadershipListeners) {
            l.leaderChanged(partition, oldLeader, newLeader);
        }
    }

    /** The lowest live broker id acts as controller. */
    public int controllerId() {
        return alive.isEmpty() ? -1 : alive.iterator().next();
    }

    public void registerBroker(BrokerInfo broker, BrokerConfigs configs) {
        brokers.put(broker.id(), broker);
        brokerConfigs.put(broker.id(), configs);
        alive.add(broker.id());
    }

    /** Brokers that are up and reachable by the controller; what Metadata and DescribeCluster list. */
    public Collection<BrokerInfo> liveBrokers() {
        return alive.stream().map(brokers::get).toList();
    }

    public java.util.Optional<BrokerInfo> brokerInfo(int brokerId) {
        return java.util.Optional.ofNullable(brokers.get(brokerId));
    }

    public boolean isAlive(int brokerId) {
        return alive.contains(brokerId);
    }

    void markAlive(int brokerId, boolean up) {
        if (up) {
            alive.add(brokerId);
        } else {
            alive.remove(brokerId);
        }
    }

    public Collection<Integer> brokerIds() {
        return brokers.keySet();
    }

    public BrokerConfigs brokerConfigs(int brokerId) {
        return brokerConfigs.get(brokerId);
    }

    public BrokerConfigs controllerConfigs() {
        return brokerConfigs.get(controllerId());
    }

    public Collection<Topic> topics() {
        return topics.values();
    }

    public Topic topic(String name) {
        return topics.get(name);
    }

    public Topic topic(Uuid id) {
        return topicsById.get(id);
    }

    public Partition partition(TopicPartition tp) {
        Topic topic = topics.get(tp.topic());
        return topic == null ? null : topic.partition(tp.partition());
    }

    /**
     * Creates a topic, or only validates the request when {@code validateOnly}.
     *
     * @param partitions -1 for num.partitions
     * @param replicationFactor -1 for default.replication.factor
     * @param assignments explicit replicas per partition in the order requested, or empty
     * @throws org.apache.kafka.common.errors.ApiException with the error Kafka gives for a bad request
     */
    public Topic createTopic(String name, int partitions, int replicationFactor, List<ReplicaAssignment> assignments,
                             Map<String, String> configs, boolean validateOnly) {
        org.apache.kafka.common.internals.Topic.validate(name);
        throwIfCollides(name);
        if (topics.containsKey(name)) {
            throw new TopicExistsException("Topic '" + name + "' already exists.");
        }
        BrokerConfigs defaults = controllerConfigs();
        List<List<Integer>> replicas;
        if (!assignments.isEmpty()) {
            if (partitions != -1 || replicationFactor != -1) {
                throw new InvalidRequestException("Both numPartitions or replicationFactor and replicasAssignments were set. Both cannot be used at the same time.");
            }
            replicas = manualReplicas(assignments);
            MemoryMapBudget.check(replicas.stream().mapToLong(List::size).sum());
        } else {
            int count = partitions == -1 ? defaults.getInt("num.partitions") : partitions;
            int rf = replicationFactor == -1 ? defaults.getInt("default.replication.factor") : replicationFactor;
            if (count <= 0) {
                throw new InvalidPartitionsException("Number of partitions was set to an invalid non-positive value.");
            }
            if (rf <= 0) {
                throw new InvalidReplicationFactorException("Replication factor must be larger than 0, or -1 to use the default value.");
            }
            if (rf > alive.size()) {
                throw new InvalidReplicationFactorException("Unable to replicate the partition " + rf
                        + " time(s): The target replication factor of " + rf + " cannot be reached because only "
                        + alive.size() + " broker(s) are registered.");
            }
            // Checked before placement, which allocates per partition: 2^31-1 partitions must not reach it.
            MemoryMapBudget.check((long) count * rf);
            replicas = ReplicaPlacement.assign(new ArrayList<>(alive), count, rf, 0, random);
        }
        TopicConfigs.validate(configs);
        if (validateOnly) {
            Topic preview = new Topic(name, Uuid.ZERO_UUID, configs);
            for (int p = 0; p < replicas.size(); p++) {
                preview.addPartition(new Partition(preview, p, replicas.get(p)));
            }
            return preview;
        }
        // Persisted first and published last: a topic that cannot be stored or opened is not half-created.
        Uuid id = newTopicId();
        store.writeTopic(new MetadataStore.StoredTopic(name, id, configs, replicas, Map.of()));
        Topic topic = new Topic(name, id, configs);
        try {
            for (List<Integer> r : replicas) {
                addPartition(topic, r);
            }
        } catch (RuntimeException e) {
            topic.partitions().forEach(p -> p.logs().forEach(PartitionLog::delete));
            store.deleteTopic(id);
            throw e;
        }
        topics.put(name, topic);
        topicsById.put(topic.id(), topic);
        Partition first = topic.partitions().get(0);
        timeline.record(new TopicCreated(name, replicas.size(), replicas.get(0).size(), topic.id().toString(),
                effectiveConfig(topic, first.leader() > 0 ? first.leader() : first.replicas().get(0)).minInsyncReplicas(),
                states(topic.partitions())));
        announceLeaders(topic.partitions());
        return topic;
    }

    /**
     * Kafka refuses a name that differs from an existing one only by '.' against '_', since their metric names clash.
     *
     * @throws InvalidTopicException naming the existing topic
     */
    private void throwIfCollides(String name) {
        if (!org.apache.kafka.common.internals.Topic.hasCollisionChars(name)) {
            return;
        }
        for (Topic existing : topics.values()) {
            if (!existing.name().equals(name) && org.apache.kafka.common.internals.Topic.hasCollision(name, existing.name())) {
                throw new InvalidTopicException("Topic '" + name + "' collides with existing topic: " + existing.name());
            }
        }
    }

    /**
     * Kafka's ReplicationControlManager reading manual assignments, in the order given: each partition once, each
     * replica list valid and as long as the first, partitions consecutive from 0.
     *
     * @throws InvalidReplicaAssignmentException with Kafka's message for the first fault found
     */
    private List<List<Integer>> manualReplicas(List<ReplicaAssignment> assignments) {
        Map<Integer, List<Integer>> byPartition = new TreeMap<>();
        int replicationFactor = assignments.get(0).brokerIds().size();
        for (ReplicaAssignment a : assignments) {
            if (byPartition.put(a.partition(), a.brokerIds()) != null) {
                throw new InvalidReplicaAssignmentException("Found multiple manual partition assignments for partition "
                        + a.partition());
            }
            if (a.brokerIds().size() != replicationFactor) {
                throw new InvalidReplicaAssignmentException("The manual partition assignment includes a partition with "
                        + a.brokerIds().size() + " replica(s), but this is not consistent with previous partitions, which have "
                        + replicationFactor + " replica(s).");
            }
        }
        List<List<Integer>> replicas = new ArrayList<>();
        for (int p = 0; p < byPartition.size(); p++) {
            List<Integer> r = byPartition.get(p);
            if (r == null) {
                throw new InvalidReplicaAssignmentException("Partitions should be consecutive and start from 0; partition " + p + " is missing");
            }
            validateAssignment(r);
            replicas.add(r);
        }
        return replicas;
    }

    private void validateAssignment(List<Integer> replicas) {
        if (replicas.isEmpty()) {
            throw new InvalidReplicaAssignmentException("Replica assignment must not be empty");
        }
        if (replicas.stream().distinct().count() != replicas.size()) {
            throw new InvalidReplicaAssignmentException("Duplicate brokers in replica assignment " + replicas);
        }
        for (int b : replicas) {
            if (!brokers.containsKey(b)) {
                throw new InvalidReplicaAssignmentException("Replica assignment " + replicas + " names broker " + b
                        + ", which is not registered");
            }
        }
    }

    /** @throws InvalidPartitionsException when {@code newCount} does not grow the topic */
    public void createPartitions(String name, int newCount, List<List<Integer>> assignments, boolean validateOnly) {
        Topic topic = requireTopic(name);
        int current = topic.partitions().size();
        if (newCount < current) {
            throw new InvalidPartitionsException("Topic currently has " + current + " partitions, which is higher than the requested " + newCount + ".");
        }
        if (newCount == current) {
            throw new InvalidPartitionsException("Topic already has " + current + " partitions.");
        }
        List<List<Integer>> replicas;
        if (assignments != null && !assignments.isEmpty()) {
            if (assignments.size() != newCount - current) {
                throw new InvalidReplicaAssignmentException("Attempted to add " + (newCount - current)
                        + " additional partition(s), but only " + assignments.size() + " assignment(s) were specified.");
            }
            assignments.forEach(this::validateAssignment);
            replicas = assignments;
            MemoryMapBudget.check(replicas.stream().mapToLong(List::size).sum());
        } else {
            MemoryMapBudget.check((long) (newCount - current) * topic.replicationFactor());
            replicas = ReplicaPlacement.assign(new ArrayList<>(alive), newCount - current,
                    topic.replicationFactor(), current, random);
        }
        if (validateOnly) {
            return;
        }
        replicas.forEach(r -> addPartition(topic, r));
        persist(topic);
        timeline.record(new PartitionsCreated(name, newCount, states(topic.partitions().subList(current, newCount))));
        announceLeaders(topic.partitions().subList(current, newCount));
    }

    public void deleteTopic(String name) {
        Topic topic = requireTopic(name);
        topics.remove(name);
        topicsById.remove(topic.id());
        for (Partition p : topic.partitions()) {
            p.logs().forEach(PartitionLog::delete);
        }
        store.deleteTopic(topic.id());
        timeline.record(new TopicDeleted(name, topic.id().toString()));
    }

    /** Replaces the topic's overrides (already validated) and applies them to every replica log. */
    public void setTopicConfigs(Topic topic, Map<String, String> overrides) {
        topic.setConfigs(overrides);
        for (Partition p : topic.partitions()) {
            for (int broker : p.replicas()) {
                PartitionLog log = p.log(broker);
                if (log != null) {
                    log.updateConfig(logConfig(topic, broker));
                }
            }
        }
        persist(topic);
    }

    /** Applies changed broker defaults to every log. */
    public void brokerConfigsChanged() {
        for (Topic topic : topics.values()) {
            setTopicConfigs(topic, new LinkedHashMap<>(topic.configs()));
        }
    }

    public Topic requireTopic(String name) {
        Topic topic = topics.get(name);
        if (topic == null) {
            throw new UnknownTopicOrPartitionException("This server does not host this topic: " + name);
        }
        return topic;
    }

    /** The topic's configs as {@code brokerId} applies them, parsed once until the topic's or the broker's change. */
    public EffectiveTopicConfig effectiveConfig(Topic topic, int brokerId) {
        return topic.effectiveConfig(brokerId, id -> TopicConfigs.effective(topic.configs(), brokerConfigs(id)));
    }

    LogConfig logConfig(Topic topic, int brokerId) {
        return effectiveConfig(topic, brokerId).logConfig();
    }

    private void addPartition(Topic topic, List<Integer> replicas) {
        Partition partition = new Partition(topic, topic.partitions().size(), replicas);
        topic.addPartition(partition);
        int epoch = 0;
        long highWatermark = Long.MAX_VALUE;
        for (int broker : replicas) {
            if (alive.contains(broker)) {
                PartitionLog log = openLog(topic, partition, broker);
                partition.attachLog(broker, log);
                epoch = Math.max(epoch, log.latestEpoch().orElse(0));
                highWatermark = Math.min(highWatermark, log.logEndOffset());
            }
        }
        // A reopened cluster keeps the epoch its logs were written in, and trusts only what every replica has.
        partition.setLeader(replicas.get(0), epoch, clock.getAsLong());
        if (partition.leaderLog() != null) {
            partition.leaderLog().assignLeaderEpoch(epoch);
        }
        partition.resetHighWatermark(highWatermark == Long.MAX_VALUE ? 0 : highWatermark);
    }

    /** A published partition's first leader is a leader change too, so that a coordinator loads it at once. */
    /** The partitions' leadership as the timeline's creation events carry it. */
    private static List<dev.samsa.event.PartitionState> states(List<Partition> partitions) {
        return partitions.stream().map(p -> new dev.samsa.event.PartitionState(p.index(), p.leader(), p.leaderEpoch(),
                p.isr())).toList();
    }

    private void announceLeaders(List<Partition> partitions) {
        partitions.forEach(p -> leaderChanged(p, -1, p.leader()));
    }

    /** Broker {@code broker}'s log directory, absolute: its one entry of {@code log.dirs}. */
    public Path brokerLogDir(int broker) {
        return dataDir.resolve("broker-" + broker).toAbsolutePath();
    }

    private Path logDir(Topic topic, Partition partition, int broker) {
        return brokerLogDir(broker).resolve(LogFileUtils.partitionDirName(topic.name(), partition.index()));
    }

    /** Deletes what a broker that is down still keeps of a replica it no longer has; a no-op if nothing is there. */
    void deleteLogDirectory(Topic topic, Partition partition, int broker) {
        Path dir = logDir(topic, partition, broker);
        try {
            LogFileUtils.deleteRecursively(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot delete the replica of " + partition.topicPartition() + " in " + dir, e);
        }
    }

    PartitionLog openLog(Topic topic, Partition partition, int broker) {
        Path dir = logDir(topic, partition, broker);
        try {
            PartitionLog log = PartitionLog.open(dir, logConfig(topic, broker), stores, clock.getAsLong());
            if (org.apache.kafka.common.internals.Topic.isInternal(topic.name())) {
                // A coordinator writes to its partition as a group joins or a transaction starts: the files are made
                // now, off the loop, instead of while a client waits for that first write on three replicas.
                log.prepareFilesInBackground();
            }
            return log;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot open the log of " + partition.topicPartition() + " in " + dir, e);
        }
    }

    private Uuid newTopicId() {
        Uuid id;
        do {
            id = new Uuid(random.nextLong(), random.nextLong());
        } while (id.equals(Uuid.ZERO_UUID) || id.equals(Uuid.METADATA_TOPIC_ID) || id.toString().startsWith("-")
                || topicsById.containsKey(id));
        return id;
    }

    /** Reopens the topics of an earlier run on this directory; call after every broker is registered. */
    public void loadTopics() {
        for (MetadataStore.StoredTopic stored : store.readTopics()) {
            Topic topic = new Topic(stored.name(), stored.id(), stored.configs());
            topics.put(topic.name(), topic);
            topicsById.put(topic.id(), topic);
            stored.replicas().forEach(replicas -> addPartition(topic, replicas));
            announceLeaders(topic.partitions());
            stored.targets().forEach((p, target) -> unfinishedReassignments.put(new TopicPartition(topic.name(), p), target));
        }
    }

    /** Takes the reassignments {@link #loadTopics} found unfinished: partition and target replicas. */
    Map<TopicPartition, List<Integer>> takeUnfinishedReassignments() {
        Map<TopicPartition, List<Integer>> out = new LinkedHashMap<>(unfinishedReassignments);
        unfinishedReassignments.clear();
        return out;
    }

    /**
     * Stores the topic; a partition being reassigned is stored as its replicas before the reassignment plus the target,
     * so that a reopened cluster starts from replicas that hold data and resumes the reassignment.
     */
    void persist(Topic topic) {
        List<List<Integer>> replicas = new ArrayList<>();
        Map<Integer, List<Integer>> targets = new LinkedHashMap<>();
        for (Partition p : topic.partitions()) {
            List<Integer> original = new ArrayList<>(p.replicas());
            original.removeAll(p.addingReplicas());
            replicas.add(original);
            if (p.isReassigning()) {
                List<Integer> target = new ArrayList<>(p.replicas());
                target.removeAll(p.removingReplicas());
                targets.put(p.index(), target);
            }
        }
        store.writeTopic(new MetadataStore.StoredTopic(topic.name(), topic.id(), topic.configs(), replicas, targets));
    }

    /** Stores a cluster-wide value (next producer id block, ...) next to the cluster id. */
    public void storeClusterProperty(String key, String value) {
        store.storeClusterProperty(key, value);
    }

    public String clusterProperty(String key) {
        return store.clusterProperty(key);
    }

    public void close() {
        // Detached as a stopped broker's are, so that a timer firing before the loop itself stops (the cleaner, retention)
        // finds no replica there rather than a closed log.
        for (Topic topic : topics.values()) {
            for (Partition p : topic.partitions()) {
                p.detachLogs().forEach(PartitionLog::close);
            }
        }
    }
}
