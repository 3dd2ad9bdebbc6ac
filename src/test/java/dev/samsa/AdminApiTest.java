package dev.samsa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ConfigEntry.ConfigSource;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.CreateTopicsResult;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.DescribeConfigsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicCollection;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.InvalidReplicationFactorException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The admin APIs through the real kafka-clients {@link Admin}, checked against what a Kafka broker answers. */
class AdminApiTest {

    private static final long TIMEOUT_S = 30;
    private static final long BASE_TIMESTAMP = 1_700_000_000_000L;

    private KafkaCluster cluster;
    private Admin admin;

    @BeforeEach
    void start() {
        cluster = KafkaCluster.builder().brokers(3).brokerConfig("num.partitions", "2").start();
        admin = Admin.create(cluster.adminConfig());
    }

    @AfterEach
    void stop() {
        if (admin != null) {
            admin.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void createdTopicIsDescribedByNameAndIdAndListed() throws Exception {
        CreateTopicsResult created = admin.createTopics(List.of(
                new NewTopic("orders", 3, (short) 2).configs(Map.of("retention.ms", "3600000"))));

        Uuid id = created.topicId("orders").get(TIMEOUT_S, TimeUnit.SECONDS);
        assertThat(id).isNotEqualTo(Uuid.ZERO_UUID);
        assertThat(created.numPartitions("orders").get(TIMEOUT_S, TimeUnit.SECONDS)).isEqualTo(3);
        assertThat(created.replicationFactor("orders").get(TIMEOUT_S, TimeUnit.SECONDS)).isEqualTo(2);
        Config configs = created.config("orders").get(TIMEOUT_S, TimeUnit.SECONDS);
        assertThat(configs.get("retention.ms").value()).isEqualTo("3600000");
        assertThat(configs.get("retention.ms").source()).isEqualTo(ConfigSource.DYNAMIC_TOPIC_CONFIG);
        assertThat(configs.get("segment.bytes").source()).isEqualTo(ConfigSource.DEFAULT_CONFIG);

        TopicDescription byName = describe("orders");
        assertThat(byName.topicId()).isEqualTo(id);
        assertThat(byName.partitions()).hasSize(3).allSatisfy(p -> assertThat(p.replicas()).hasSize(2));
        assertThat(admin.listTopics().names().get(TIMEOUT_S, TimeUnit.SECONDS)).contains("orders");
    }

    @Test
    void createdTopicIsDescribedById() throws Exception {
        Uuid id = admin.createTopics(List.of(new NewTopic("by-id", 2, (short) 1))).topicId("by-id").get(TIMEOUT_S, TimeUnit.SECONDS);

        TopicDescription byId = admin.describeTopics(TopicCollection.ofTopicIds(List.of(id))).allTopicIds()
                .get(TIMEOUT_S, TimeUnit.SECONDS).get(id);

        assertThat(byId.name()).isEqualTo("by-id");
        assertThat(byId.partitions()).hasSize(2);
    }

    @Test
    void createTopicWithDefaultsUsesBrokerNumPartitions() throws Exception {
        admin.createTopics(List.of(new NewTopic("defaults", Optional.empty(), Optional.empty())))
                .all().get(TIMEOUT_S, TimeUnit.SECONDS);

        TopicDescription description = describe("defaults");
        assertThat(description.partitions()).as("num.partitions=2 on the brokers").hasSize(2);
        assertThat(description.partitions().get(0).replicas()).as("default.replication.factor=1").hasSize(1);
    }

    @Test
    void validateOnlyCreatesNothing() throws Exception {
        CreateTopicsResult result = admin.createTopics(List.of(new NewTopic("dry-run", 4, (short) 1)),
                new CreateTopicsOptions().validateOnly(true));

        assertThat(result.numPartitions("dry-run").get(TIMEOUT_S, TimeUnit.SECONDS)).isEqualTo(4);
        assertThat(admin.listTopics().names().get(TIMEOUT_S, TimeUnit.SECONDS)).doesNotContain("dry-run");
    }

    @Test
    void createTopicFailsAsKafkaDoes() throws Exception {
        admin.createTopics(List.of(new NewTopic("existing", 1, (short) 1))).all().get(TIMEOUT_S, TimeUnit.SECONDS);

        assertThatThrownBy(() -> admin.createTopics(List.of(new NewTopic("existing", 1, (short) 1))).all()
                .get(TIMEOUT_S, TimeUnit.SECONDS)).hasCauseInstanceOf(TopicExistsException.class);
        assertThatThrownBy(() -> admin.createTopics(List.of(new NewTopic("bad-config", 1, (short) 1)
                .configs(Map.of("retention.ms", "forever")))).all().get(TIMEOUT_S, TimeUnit.SECONDS))
                .hasCauseInstanceOf(InvalidConfigurationException.class);
        assertThatThrownBy(() -> admin.createTopics(List.of(new NewTopic("unknown-config", 1, (short) 1)
                .configs(Map.of("no.such.config", "1")))).all().get(TIMEOUT_S, TimeUnit.SECONDS))
                .hasCauseInstanceOf(InvalidConfigurationException.class);
        assertThatThrownBy(() -> admin.createTopics(List.of(new NewTopic("too-many-replicas", 1, (short) 4))).all()
                .get(TIMEOUT_S, TimeUnit.SECONDS))
                .hasCauseInstanceOf(InvalidReplicationFactorException.class)
                .hasMessageContaining("only 3 broker(s) are registered");
    }

    @Test
    void deletedTopicIsGone() throws Exception {
        admin.createTopics(List.of(new NewTopic("by-name", 2, (short) 1), new NewTopic("by-id", 1, (short) 1)))
                .all().get(TIMEOUT_S, TimeUnit.SECONDS);
        Uuid byId = describe("by-id").topicId();

        admin.deleteTopics(List.of("by-name")).all().get(TIMEOUT_S, TimeUnit.SECONDS);
        admin.deleteTopics(TopicCollection.ofTopicIds(List.of(byId))).all().get(TIMEOUT_S, TimeUnit.SECONDS);

        assertThat(admin.listTopics().names().get(TIMEOUT_S, TimeUnit.SECONDS)).doesNotContain("by-name", "by-id");
        assertThatThrownBy(() -> describe("by-name")).hasCauseInstanceOf(UnknownTopicOrPartitionException.class);
        assertThatThrownBy(() -> admin.deleteTopics(List.of("by-name")).all().get(TIMEOUT_S, TimeUnit.SECONDS))
                .hasCauseInstanceOf(UnknownTopicOrPartitionException.class);
    }

    @Test
    void createPartitionsGrowsButNeverShrinks() throws Exception {
        admin.createTopics(List.of(new NewTopic("growing", 2, (short) 1))).all().get(TIMEOUT_S, TimeUnit.SECONDS);

        admin.createPartitions(Map.of("growing", NewPartitions.increaseTo(5))).all().get(TIMEOUT_S, TimeUnit.SECONDS);

        assertThat(describe("growing").partitions()).hasSize(5);
        assertThatThrownBy(() -> admin.createPartitions(Map.of("growing", NewPartitions.increaseTo(3))).all()
                .get(TIMEOUT_S, TimeUnit.SECONDS)).hasCauseInstanceOf(InvalidPartitionsException.class);
        assertThatThrownBy(() -> admin.createPartitions(Map.of("no-such-topic", NewPartitions.increaseTo(3))).all()
                .get(TIMEOUT_S, TimeUnit.SECONDS)).hasCauseInstanceOf(UnknownTopicOrPartitionException.class);
    }

    @Test
    void listOffsetsFindsEarliestLatestAndMaxTimestamp() throws Exception {
        cluster.createTopic("timed", 1, 1);
        // Offsets 0..3 carry timestamps +1000, +4000, +2000, +3000: not in offset order, as a producer may send them.
        produce("timed", 1000, 4000, 2000, 3000);
        TopicPartition tp = new TopicPartition("timed", 0);

        assertThat(offset(tp, OffsetSpec.earliest()).offset()).isZero();
        assertThat(offset(tp, OffsetSpec.latest()).offset()).isEqualTo(4);
        ListOffsetsResultInfo max = offset(tp, OffsetSpec.maxTimestamp());
        assertThat(max.offset()).isEqualTo(1);
        assertThat(max.timestamp()).isEqualTo(BASE_TIMESTAMP + 4000);
    }

    @Test
    void listOffsetsForTimestampFindsTheFirstRecordAtOrAfterIt() throws Exception {
        cluster.createTopic("timed", 1, 1);
        produce("timed", 1000, 4000, 2000, 3000);
        TopicPartition tp = new TopicPartition("timed", 0);

        ListOffsetsResultInfo found = offset(tp, OffsetSpec.forTimestamp(BASE_TIMESTAMP + 1500));
        assertThat(found.offset()).as("offset 1 is the first whose timestamp is at least +1500").isEqualTo(1);
        assertThat(found.timestamp()).isEqualTo(BASE_TIMESTAMP + 4000);
        assertThat(offset(tp, OffsetSpec.forTimestamp(BASE_TIMESTAMP + 5000)).offset()).as("no record that late").isEqualTo(-1);
    }

    @Test
    void describeConfigsShowsTopicOverridesAndDefaults() throws Exception {
        cluster.createTopic("configured", 1, 1, Map.of("cleanup.policy", "compact"));
        ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, "configured");

        Config config = admin.describeConfigs(List.of(topic), new DescribeConfigsOptions().includeSynonyms(true)
                .includeDocumentation(true)).all().get(TIMEOUT_S, TimeUnit.SECONDS).get(topic);

        ConfigEntry cleanup = config.get("cleanup.policy");
        assertThat(cleanup.value()).isEqualTo("compact");
        assertThat(cleanup.source()).isEqualTo(ConfigSource.DYNAMIC_TOPIC_CONFIG);
        assertThat(cleanup.type()).isEqualTo(ConfigEntry.ConfigType.LIST);
        assertThat(cleanup.synonyms()).extracting(ConfigEntry.ConfigSynonym::name, ConfigEntry.ConfigSynonym::source)
                .containsExactly(tuple("cleanup.policy", ConfigSource.DYNAMIC_TOPIC_CONFIG),
                        tuple("log.cleanup.policy", ConfigSource.DEFAULT_CONFIG));
        ConfigEntry retention = config.get("retention.ms");
        assertThat(retention.value()).isEqualTo("604800000");
        assertThat(retention.source()).isEqualTo(ConfigSource.DEFAULT_CONFIG);
        assertThat(retention.isReadOnly()).isFalse();
        assertThat(retention.type()).isEqualTo(ConfigEntry.ConfigType.LONG);
        assertThat(retention.documentation()).contains("retain a log");
    }

    @Test
    void describeConfigsOfAMissingTopicFails() {
        ConfigResource missing = new ConfigResource(ConfigResource.Type.TOPIC, "missing");
        assertThatThrownBy(() -> admin.describeConfigs(List.of(missing)).all().get(TIMEOUT_S, TimeUnit.SECONDS))
                .hasCauseInstanceOf(UnknownTopicOrPartitionException.class);
    }

    @Test
    void describeConfigsOfABrokerShowsStaticAndReadOnlyConfigs() throws Exception {
        ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, "2");

        Config config = admin.describeConfigs(List.of(broker)).all().get(TIMEOUT_S, TimeUnit.SECONDS).get(broker);

        assertThat(config.get("num.partitions").value()).isEqualTo("2");
        assertThat(config.get("num.partitions").source()).isEqualTo(ConfigSource.STATIC_BROKER_CONFIG);
        assertThat(config.get("num.partitions").documentation()).as("not asked for").isNull();
        assertThat(config.get("broker.id").value()).isEqualTo("2");
        assertThat(config.get("broker.id").isReadOnly()).isTrue();
        assertThat(config.get("log.segment.bytes").source()).isEqualTo(ConfigSource.DEFAULT_CONFIG);
    }

    @Test
    void describeConfigsOfABrokerListsEverySynonymAndTheConfigDefType() throws Exception {
        ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, "1");
        try (KafkaCluster configured = KafkaCluster.builder().brokerConfig("log.segment.bytes", "2097152").start();
             Admin configuredAdmin = Admin.create(configured.adminConfig())) {
            // Both dynamic levels of a config Kafka can change dynamically.
            configuredAdmin.incrementalAlterConfigs(Map.of(
                    broker, List.of(new AlterConfigOp(new ConfigEntry("log.segment.bytes", "8388608"), AlterConfigOp.OpType.SET)),
                    new ConfigResource(ConfigResource.Type.BROKER, ""),
                    List.of(new AlterConfigOp(new ConfigEntry("log.segment.bytes", "4194304"), AlterConfigOp.OpType.SET))))
                    .all().get(TIMEOUT_S, TimeUnit.SECONDS);

            Config config = configuredAdmin.describeConfigs(List.of(broker),
                            new DescribeConfigsOptions().includeSynonyms(true).includeDocumentation(true))
                    .all().get(TIMEOUT_S, TimeUnit.SECONDS).get(broker);

            ConfigEntry segment = config.get("log.segment.bytes");
            assertThat(segment.value()).isEqualTo("8388608");
            assertThat(segment.source()).isEqualTo(ConfigSource.DYNAMIC_BROKER_CONFIG);
            assertThat(segment.synonyms()).as("the static value though a dynamic one wins")
                    .extracting(ConfigEntry.ConfigSynonym::value, ConfigEntry.ConfigSynonym::source)
                    .containsExactly(tuple("8388608", ConfigSource.DYNAMIC_BROKER_CONFIG),
                            tuple("4194304", ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG),
                            tuple("2097152", ConfigSource.STATIC_BROKER_CONFIG),
                            tuple("1073741824", ConfigSource.DEFAULT_CONFIG));
            assertThat(segment.type()).isEqualTo(ConfigEntry.ConfigType.INT);
            assertThat(config.get("broker.id").type()).isEqualTo(ConfigEntry.ConfigType.INT);
            assertThat(config.get("auto.create.topics.enable").type()).isEqualTo(ConfigEntry.ConfigType.BOOLEAN);
            assertThat(config.get("log.cleanup.policy").type()).isEqualTo(ConfigEntry.ConfigType.LIST);
            ConfigEntry delay = config.get("group.initial.rebalance.delay.ms");
            assertThat(delay.value()).isEqualTo("0");
            assertThat(delay.source()).as("Samsa's test default is the broker's configured value")
                    .isEqualTo(ConfigSource.STATIC_BROKER_CONFIG);
            assertThat(delay.synonyms()).extracting(ConfigEntry.ConfigSynonym::value, ConfigEntry.ConfigSynonym::source)
                    .containsExactly(tuple("0", ConfigSource.STATIC_BROKER_CONFIG), tuple("3000", ConfigSource.DEFAULT_CONFIG));
            assertThat(config.get("offsets.topic.num.partitions").source()).isEqualTo(ConfigSource.STATIC_BROKER_CONFIG);
        }
    }

    @Test
    void incrementalAlterConfigsSetsAppendsAndDeletesTopicConfigs() throws Exception {
        cluster.createTopic("altered", 1, 1);
        ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, "altered");

        alter(topic, new AlterConfigOp(new ConfigEntry("retention.ms", "1000"), AlterConfigOp.OpType.SET),
                new AlterConfigOp(new ConfigEntry("cleanup.policy", "compact"), AlterConfigOp.OpType.APPEND));
        Config altered = describeConfigs(topic);
        assertThat(altered.get("retention.ms").value()).isEqualTo("1000");
        assertThat(altered.get("retention.ms").source()).isEqualTo(ConfigSource.DYNAMIC_TOPIC_CONFIG);
        assertThat(altered.get("cleanup.policy").value()).as("appended to Kafka's default").isEqualTo("delete,compact");

        alter(topic, new AlterConfigOp(new ConfigEntry("retention.ms", null), AlterConfigOp.OpType.DELETE));
        Config deleted = describeConfigs(topic);
        assertThat(deleted.get("retention.ms").value()).isEqualTo("604800000");
        assertThat(deleted.get("retention.ms").source()).isEqualTo(ConfigSource.DEFAULT_CONFIG);
    }

    @Test
    void incrementalAlterConfigsRefusesWhatKafkaRefuses() {
        cluster.createTopic("strict", 1, 1);
        ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, "strict");
        ConfigResource missing = new ConfigResource(ConfigResource.Type.TOPIC, "missing");
        ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, "1");

        assertThatThrownBy(() -> alter(topic, new AlterConfigOp(new ConfigEntry("retention.ms", "soon"), AlterConfigOp.OpType.SET)))
                .hasCauseInstanceOf(InvalidConfigurationException.class);
        assertThatThrownBy(() -> alter(topic, new AlterConfigOp(new ConfigEntry("retention.ms", "1"), AlterConfigOp.OpType.APPEND)))
                .hasCauseInstanceOf(InvalidConfigurationException.class).hasMessageContaining("not LIST");
        assertThatThrownBy(() -> alter(missing, new AlterConfigOp(new ConfigEntry("retention.ms", "1"), AlterConfigOp.OpType.SET)))
                .hasCauseInstanceOf(UnknownTopicOrPartitionException.class);
        assertThatThrownBy(() -> alter(broker, new AlterConfigOp(new ConfigEntry("broker.id", "7"), AlterConfigOp.OpType.SET)))
                .hasCauseInstanceOf(InvalidRequestException.class).hasMessageContaining("Cannot update these configs dynamically");
    }

    @Test
    void brokerLevelDynamicConfigsReachDescribeAndTopicDefaults() throws Exception {
        cluster.createTopic("inherits", 1, 1);
        ConfigResource broker1 = new ConfigResource(ConfigResource.Type.BROKER, "1");
        ConfigResource clusterDefault = new ConfigResource(ConfigResource.Type.BROKER, "");

        alter(broker1, new AlterConfigOp(new ConfigEntry("log.retention.ms", "7200000"), AlterConfigOp.OpType.SET));
        alter(clusterDefault, new AlterConfigOp(new ConfigEntry("log.segment.bytes", "1048576"), AlterConfigOp.OpType.SET));

        Config broker = describeConfigs(broker1);
        assertThat(broker.get("log.retention.ms").value()).isEqualTo("7200000");
        assertThat(broker.get("log.retention.ms").source()).isEqualTo(ConfigSource.DYNAMIC_BROKER_CONFIG);
        assertThat(broker.get("log.segment.bytes").source()).isEqualTo(ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG);
        Config defaults = describeConfigs(clusterDefault);
        assertThat(defaults.entries()).extracting(ConfigEntry::name).containsExactly("log.segment.bytes");
        Config other = describeConfigs(new ConfigResource(ConfigResource.Type.BROKER, "2"));
        assertThat(other.get("log.retention.ms").source()).as("set on broker 1 only").isEqualTo(ConfigSource.DEFAULT_CONFIG);
        assertThat(other.get("log.segment.bytes").value()).isEqualTo("1048576");
    }

    @Test
    void describeClusterNamesEveryBrokerAndTheController() throws Exception {
        DescribeClusterResult result = admin.describeCluster();

        assertThat(result.clusterId().get(TIMEOUT_S, TimeUnit.SECONDS)).isNotBlank();
        assertThat(result.controller().get(TIMEOUT_S, TimeUnit.SECONDS).id()).isEqualTo(1);
        Collection<Node> nodes = result.nodes().get(TIMEOUT_S, TimeUnit.SECONDS);
        assertThat(nodes).extracting(Node::id).containsExactlyInAnyOrder(1, 2, 3);
        assertThat(nodes).extracting(Node::host).containsOnly("127.0.0.1");
        assertThat(result.authorizedOperations().get(TIMEOUT_S, TimeUnit.SECONDS)).as("not asked for").isNull();
    }

    @Test
    void deleteRecordsMovesTheEarliestOffset() throws Exception {
        cluster.createTopic("trimmed", 1, 1);
        produce("trimmed", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10);
        TopicPartition tp = new TopicPartition("trimmed", 0);

        long low = admin.deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(4))).lowWatermarks().get(tp)
                .get(TIMEOUT_S, TimeUnit.SECONDS).lowWatermark();

        assertThat(low).isEqualTo(4);
        assertThat(offset(tp, OffsetSpec.earliest()).offset()).isEqualTo(4);
        assertThatThrownBy(() -> admin.deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(11))).all()
                .get(TIMEOUT_S, TimeUnit.SECONDS)).hasCauseInstanceOf(OffsetOutOfRangeException.class);
        long all = admin.deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(-1))).lowWatermarks().get(tp)
                .get(TIMEOUT_S, TimeUnit.SECONDS).lowWatermark();
        assertThat(all).as("-1 means the high watermark").isEqualTo(10);
    }

    private TopicDescription describe(String topic) throws Exception {
        return admin.describeTopics(List.of(topic)).allTopicNames().get(TIMEOUT_S, TimeUnit.SECONDS).get(topic);
    }

    private Config describeConfigs(ConfigResource resource) throws Exception {
        return admin.describeConfigs(List.of(resource)).all().get(TIMEOUT_S, TimeUnit.SECONDS).get(resource);
    }

    private void alter(ConfigResource resource, AlterConfigOp... ops) throws Exception {
        admin.incrementalAlterConfigs(Map.of(resource, List.of(ops))).all().get(TIMEOUT_S, TimeUnit.SECONDS);
    }

    private ListOffsetsResultInfo offset(TopicPartition tp, OffsetSpec spec) throws Exception {
        return admin.listOffsets(Map.of(tp, spec)).partitionResult(tp).get(TIMEOUT_S, TimeUnit.SECONDS);
    }

    /** One record per delta, timestamped BASE_TIMESTAMP + delta, to partition 0. */
    private void produce(String topic, long... deltas) throws Exception {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(cluster.producerConfig())) {
            for (long delta : deltas) {
                producer.send(new ProducerRecord<>(topic, 0, BASE_TIMESTAMP + delta, "k" + delta, "v" + delta))
                        .get(TIMEOUT_S, TimeUnit.SECONDS);
            }
        }
    }
}
