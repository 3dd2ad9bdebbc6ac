package dev.samsa.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.samsa.cluster.ConfigEntry.Source;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigHelperTest {

    @TempDir
    Path dir;

    private ClusterMetadata metadata;

    @BeforeEach
    void setUp() {
        metadata = ConfigFixture.threeBrokers(dir, Map.of("log.retention.ms", "7200000"));
    }

    @AfterEach
    void tearDown() {
        metadata.close();
    }

    private static ConfigEntry entry(List<ConfigEntry> entries, String name) {
        return entries.stream().filter(e -> e.name().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void aTopicConfigListsItsOverrideThenTheBrokerConfigAtEveryLevelThatSetsIt() {
        metadata.brokerConfigs(1).dynamicClusterDefaults().put("log.segment.bytes", "1048576");
        Topic topic = metadata.createTopic("t", 1, 1, List.of(), Map.of("cleanup.policy", "compact"), false);

        List<ConfigEntry> entries = ConfigHelper.describeTopic(topic.configs(), metadata.effectiveConfig(topic, 1),
                metadata.brokerConfigs(1));

        assertThat(entries).extracting(ConfigEntry::name).isSorted().hasSize(23);
        ConfigEntry cleanup = entry(entries, "cleanup.policy");
        assertThat(cleanup.value()).isEqualTo("compact");
        assertThat(cleanup.source()).isEqualTo(Source.TOPIC_CONFIG);
        assertThat(cleanup.type()).isEqualTo(ConfigDef.Type.LIST);
        assertThat(cleanup.readOnly()).isFalse();
        assertThat(cleanup.synonyms()).extracting(ConfigEntry.Synonym::name, ConfigEntry.Synonym::value, ConfigEntry.Synonym::source)
                .containsExactly(tuple("cleanup.policy", "compact", Source.TOPIC_CONFIG),
                        tuple("log.cleanup.policy", "delete", Source.DEFAULT_CONFIG));
        ConfigEntry segment = entry(entries, "segment.bytes");
        assertThat(segment.value()).isEqualTo("1048576");
        assertThat(segment.source()).isEqualTo(Source.DYNAMIC_DEFAULT_BROKER_CONFIG);
        assertThat(segment.synonyms()).extracting(ConfigEntry.Synonym::name, ConfigEntry.Synonym::value, ConfigEntry.Synonym::source)
                .containsExactly(tuple("log.segment.bytes", "1048576", Source.DYNAMIC_DEFAULT_BROKER_CONFIG),
                        tuple("log.segment.bytes", "1073741824", Source.DEFAULT_CONFIG));
        ConfigEntry retention = entry(entries, "retention.ms");
        assertThat(retention.value()).isEqualTo("7200000");
        assertThat(retention.source()).isEqualTo(Source.STATIC_BROKER_CONFIG);
        assertThat(retention.synonyms()).as("no DEFAULT_CONFIG: Kafka's default comes from log.retention.hours")
                .extracting(ConfigEntry.Synonym::value, ConfigEntry.Synonym::source)
                .containsExactly(tuple("7200000", Source.STATIC_BROKER_CONFIG));
        assertThat(retention.documentation()).contains("retain a log");
        assertThat(entry(entries, "max.message.bytes").source()).isEqualTo(Source.DEFAULT_CONFIG);
        assertThat(entry(entries, "min.cleanable.dirty.ratio").type()).isEqualTo(ConfigDef.Type.DOUBLE);
    }

    @Test
    void aBrokerShowsEveryConfigWithItsSourceAndReadOnlyness() {
        metadata.brokerConfigs(2).dynamicBrokerConfigs().put("num.partitions", "4");

        List<ConfigEntry> entries = ConfigHelper.describeBroker("2", metadata);

        assertThat(entries).extracting(ConfigEntry::name).isSorted().containsAll(BrokerConfigs.names());
        ConfigEntry id = entry(entries, "broker.id");
        assertThat(id.value()).isEqualTo("2");
        assertThat(id.readOnly()).isTrue();
        assertThat(id.source()).isEqualTo(Source.STATIC_BROKER_CONFIG);
        assertThat(id.type()).as("a broker-only config's ConfigDef type").isEqualTo(ConfigDef.Type.INT);
        assertThat(entry(entries, "auto.create.topics.enable").type()).isEqualTo(ConfigDef.Type.BOOLEAN);
        assertThat(entry(entries, "offsets.topic.replication.factor").type()).isEqualTo(ConfigDef.Type.SHORT);
        assertThat(entry(entries, "leader.imbalance.check.interval.seconds").type()).isEqualTo(ConfigDef.Type.LONG);
        ConfigEntry partitions = entry(entries, "num.partitions");
        assertThat(partitions.value()).isEqualTo("4");
        assertThat(partitions.readOnly()).isFalse();
        assertThat(partitions.synonyms()).extracting(ConfigEntry.Synonym::value, ConfigEntry.Synonym::source)
                .containsExactly(tuple("4", Source.DYNAMIC_BROKER_CONFIG), tuple("1", Source.DEFAULT_CONFIG));
        ConfigEntry segment = entry(entries, "log.segment.bytes");
        assertThat(segment.source()).isEqualTo(Source.DEFAULT_CONFIG);
        assertThat(segment.type()).as("the type of segment.bytes").isEqualTo(ConfigDef.Type.INT);
        assertThat(entry(ConfigHelper.describeBroker("1", metadata), "num.partitions").source())
                .as("set on broker 2 only").isEqualTo(Source.DEFAULT_CONFIG);
    }

    @Test
    void aBrokerConfigListsEveryLevelThatSetsItNotOnlyTheWinner() {
        metadata.controllerConfigs().dynamicClusterDefaults().put("log.retention.ms", "3600000");
        metadata.brokerConfigs(2).dynamicBrokerConfigs().put("log.retention.ms", "60000");

        ConfigEntry retention = entry(ConfigHelper.describeBroker("2", metadata), "log.retention.ms");

        assertThat(retention.value()).isEqualTo("60000");
        assertThat(retention.source()).isEqualTo(Source.DYNAMIC_BROKER_CONFIG);
        assertThat(retention.synonyms()).as("Kafka's ConfigHelper.configSynonyms: each source with a value, in precedence")
                .extracting(ConfigEntry.Synonym::name, ConfigEntry.Synonym::value, ConfigEntry.Synonym::source)
                .containsExactly(tuple("log.retention.ms", "60000", Source.DYNAMIC_BROKER_CONFIG),
                        tuple("log.retention.ms", "3600000", Source.DYNAMIC_DEFAULT_BROKER_CONFIG),
                        tuple("log.retention.ms", "7200000", Source.STATIC_BROKER_CONFIG));
        ConfigEntry topicRetention = entry(ConfigHelper.describeTopic(Map.of(),
                metadata.effectiveConfig(metadata.createTopic("t", 1, 1, List.of(), Map.of(), false), 2),
                metadata.brokerConfigs(2)), "retention.ms");
        assertThat(topicRetention.synonyms()).extracting(ConfigEntry.Synonym::source)
                .containsExactly(Source.DYNAMIC_BROKER_CONFIG, Source.DYNAMIC_DEFAULT_BROKER_CONFIG,
                        Source.STATIC_BROKER_CONFIG);
    }

    @Test
    void samsasTestDefaultsAreTheBrokersConfiguredValuesOverKafkasDefaults() {
        List<ConfigEntry> entries = ConfigHelper.describeBroker("1", metadata);

        ConfigEntry delay = entry(entries, "group.initial.rebalance.delay.ms");
        assertThat(delay.value()).isEqualTo("0");
        assertThat(delay.source()).isEqualTo(Source.STATIC_BROKER_CONFIG);
        assertThat(delay.synonyms()).extracting(ConfigEntry.Synonym::value, ConfigEntry.Synonym::source)
                .containsExactly(tuple("0", Source.STATIC_BROKER_CONFIG), tuple("3000", Source.DEFAULT_CONFIG));
        ConfigEntry offsetsPartitions = entry(entries, "offsets.topic.num.partitions");
        assertThat(offsetsPartitions.value()).isEqualTo("5");
        assertThat(offsetsPartitions.synonyms()).extracting(ConfigEntry.Synonym::value, ConfigEntry.Synonym::source)
                .containsExactly(tuple("5", Source.STATIC_BROKER_CONFIG), tuple("50", Source.DEFAULT_CONFIG));
    }

    @Test
    void theBuildersValueReplacesATestDefault() {
        BrokerConfigs configs = new BrokerConfigs(Map.of("offsets.topic.num.partitions", "3"), new HashMap<>());

        assertThat(configs.getInt("offsets.topic.num.partitions")).isEqualTo(3);
        assertThat(configs.getInt("group.initial.rebalance.delay.ms")).isZero();
        assertThat(configs.staticConfigs()).containsEntry("offsets.topic.num.partitions", "3");
    }

    @Test
    void theClusterWideViewKeepsTheSharedConfigsAndDropsTheBrokersOwnOverrides() {
        Map<String, String> clusterDefaults = new HashMap<>();
        BrokerConfigs broker = new BrokerConfigs(Map.of("group.max.size", "10"), clusterDefaults);
        broker.dynamicBrokerConfigs().put("group.consumer.heartbeat.interval.ms", "200");
        clusterDefaults.put("group.min.session.timeout.ms", "1000");

        BrokerConfigs clusterWide = broker.clusterWide();

        assertThat(clusterWide.getInt("group.max.size")).as("the builder's").isEqualTo(10);
        assertThat(clusterWide.getInt("group.min.session.timeout.ms")).as("the cluster-wide dynamic default").isEqualTo(1000);
        assertThat(clusterWide.getInt("group.consumer.heartbeat.interval.ms")).as("not this broker's own override").isEqualTo(5000);
        assertThat(broker.getInt("group.consumer.heartbeat.interval.ms")).isEqualTo(200);
    }

    @Test
    void theClusterWideResourceShowsOnlyItsDynamicDefaults() {
        assertThat(ConfigHelper.describeBroker("", metadata)).isEmpty();
        metadata.controllerConfigs().dynamicClusterDefaults().put("log.segment.bytes", "1048576");

        List<ConfigEntry> entries = ConfigHelper.describeBroker("", metadata);

        assertThat(entries).extracting(ConfigEntry::name, ConfigEntry::value, ConfigEntry::source)
                .containsExactly(tuple("log.segment.bytes", "1048576", Source.DYNAMIC_DEFAULT_BROKER_CONFIG));
        assertThat(entries.get(0).synonyms()).hasSize(1);
    }

    @Test
    void aBrokerResourceMustNameALiveBroker() {
        assertThatThrownBy(() -> ConfigHelper.describeBroker("one", metadata))
                .isInstanceOf(InvalidRequestException.class).hasMessage("Broker id must be an integer, but it is: one");
        assertThatThrownBy(() -> ConfigHelper.describeBroker("7", metadata))
                .isInstanceOf(InvalidRequestException.class)
                .hasMessage("Unexpected broker id, expected one of [1, 2, 3] or empty string, but received 7");
        assertThatThrownBy(() -> ConfigHelper.liveBrokerId("7", metadata, false))
                .isInstanceOf(InvalidRequestException.class)
                .hasMessage("Unexpected broker id, expected one of [1, 2, 3], but received 7");
        assertThatThrownBy(() -> ConfigHelper.liveBrokerId("x", metadata, false))
                .isInstanceOf(InvalidRequestException.class).hasMessage("Node id must be an integer, but it is: x");
        assertThat(ConfigHelper.liveBrokerId("3", metadata, false)).isEqualTo(3);
    }
}
