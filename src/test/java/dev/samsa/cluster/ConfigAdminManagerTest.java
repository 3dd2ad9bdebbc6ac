package dev.samsa.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.samsa.cluster.ConfigAdminManager.AlterConfigOp;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.AlterConfigOp.OpType;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigAdminManagerTest {

    @TempDir
    Path dir;

    private ClusterMetadata metadata;
    private ConfigAdminManager admin;
    private Topic topic;

    @BeforeEach
    void setUp() {
        metadata = ConfigFixture.threeBrokers(dir, Map.of());
        admin = new ConfigAdminManager(metadata);
        topic = metadata.createTopic("t", 1, 3, List.of(), Map.of(), false);
    }

    @AfterEach
    void tearDown() {
        metadata.close();
    }

    private static AlterConfigOp op(OpType type, String name, String value) {
        return new AlterConfigOp(name, type.id(), value);
    }

    private void alterTopic(String name, AlterConfigOp... ops) {
        admin.incrementalAlterConfigs(ConfigResource.Type.TOPIC, name, List.of(ops), false);
    }

    private void alterBroker(String name, AlterConfigOp... ops) {
        admin.incrementalAlterConfigs(ConfigResource.Type.BROKER, name, List.of(ops), false);
    }

    @Test
    void setAppendAndDeleteChangeTheOverridesAndTheEffectiveConfigOfEveryReplica() {
        assertThat(metadata.effectiveConfig(topic, 2).minInsyncReplicas()).isEqualTo(1);

        alterTopic("t", op(OpType.SET, "min.insync.replicas", "2"), op(OpType.APPEND, "cleanup.policy", "compact"));

        assertThat(topic.configs()).containsEntry("min.insync.replicas", "2")
                .as("appended to Kafka's default").containsEntry("cleanup.policy", "delete,compact");
        assertThat(metadata.effectiveConfig(topic, 2).minInsyncReplicas()).isEqualTo(2);
        for (int broker : topic.partition(0).replicas()) {
            assertThat(topic.partition(0).log(broker).config().compact()).isTrue();
        }

        alterTopic("t", op(OpType.SUBTRACT, "cleanup.policy", "delete"), op(OpType.DELETE, "min.insync.replicas", null));

        assertThat(topic.configs()).containsOnly(Map.entry("cleanup.policy", "compact"));
        assertThat(metadata.effectiveConfig(topic, 2).minInsyncReplicas()).isEqualTo(1);
        assertThat(metadata.effectiveConfig(topic, 2).delete()).isFalse();
    }

    @Test
    void validateOnlyChangesNothing() {
        admin.incrementalAlterConfigs(ConfigResource.Type.TOPIC, "t", List.of(op(OpType.SET, "retention.ms", "1")), true);
        admin.incrementalAlterConfigs(ConfigResource.Type.BROKER, "1", List.of(op(OpType.SET, "num.partitions", "9")), true);

        assertThat(topic.configs()).isEmpty();
        assertThat(metadata.effectiveConfig(topic, 1).retentionMs()).isEqualTo(604_800_000L);
        assertThat(metadata.brokerConfigs(1).dynamicBrokerConfigs()).isEmpty();
    }

    @Test
    void aBadTopicChangeIsRefusedWithKafkasErrorAndLeavesTheTopicAlone() {
        assertThatThrownBy(() -> alterTopic("t", op(OpType.SET, "retention.ms", "1"), op(OpType.SET, "retention.ms", "2")))
                .isInstanceOf(InvalidRequestException.class).hasMessage("Error due to duplicate config keys");
        assertThatThrownBy(() -> alterTopic("t", new AlterConfigOp("retention.ms", (byte) 9, "1")))
                .isInstanceOf(InvalidRequestException.class).hasMessage("Unknown operations type 9");
        assertThatThrownBy(() -> alterTopic("t", op(OpType.SET, "retention.ms", null), op(OpType.SET, "segment.ms", null)))
                .isInstanceOf(InvalidRequestException.class).hasMessage("Null value not supported for : retention.ms, segment.ms");
        assertThatThrownBy(() -> alterTopic("t", op(OpType.APPEND, "retention.ms", "1")))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessage("Can't APPEND to key retention.ms because its type is not LIST.");
        assertThatThrownBy(() -> alterTopic("t", op(OpType.SET, "retention.minutes", "1")))
                .isInstanceOf(InvalidConfigurationException.class).hasMessage("Unknown topic config name: retention.minutes");
        assertThatThrownBy(() -> alterTopic("t", op(OpType.SET, "min.insync.replicas", "1"), op(OpType.SET, "retention.ms", "soon")))
                .as("all or nothing").isInstanceOf(InvalidConfigurationException.class);
        assertThatThrownBy(() -> alterTopic("", op(OpType.SET, "retention.ms", "1")))
                .isInstanceOf(InvalidRequestException.class).hasMessage("Default topic resources are not allowed.");
        assertThatThrownBy(() -> alterTopic("a/b", op(OpType.SET, "retention.ms", "1")))
                .isInstanceOf(InvalidTopicException.class);
        assertThat(topic.configs()).isEmpty();
    }

    @Test
    void aMissingTopicIsReportedOnlyAfterItsConfigsPassValidation() {
        assertThatThrownBy(() -> alterTopic("missing", op(OpType.SET, "retention.ms", "soon")))
                .isInstanceOf(InvalidConfigurationException.class);
        assertThatThrownBy(() -> alterTopic("missing", op(OpType.SET, "retention.ms", "1")))
                .isInstanceOf(UnknownTopicOrPartitionException.class).hasMessage("The topic 'missing' does not exist.");
    }

    @Test
    void aBrokerChangeReachesTheTopicsThatDoNotOverrideIt() {
        alterBroker("2", op(OpType.SET, "log.retention.ms", "1000"));

        assertThat(metadata.brokerConfigs(2).dynamicBrokerConfigs()).containsOnly(Map.entry("log.retention.ms", "1000"));
        assertThat(metadata.effectiveConfig(topic, 2).retentionMs()).isEqualTo(1000);
        assertThat(metadata.effectiveConfig(topic, 1).retentionMs()).as("set on broker 2 only").isEqualTo(604_800_000L);

        alterBroker("", op(OpType.SET, "log.segment.bytes", "1048576"));

        for (int broker = 1; broker <= 3; broker++) {
            assertThat(metadata.effectiveConfig(topic, broker).logConfig().segmentBytes()).isEqualTo(1_048_576);
            assertThat(topic.partition(0).log(broker).config().segmentBytes()).isEqualTo(1_048_576);
        }

        alterBroker("", op(OpType.APPEND, "log.cleanup.policy", "compact"));

        assertThat(metadata.brokerConfigs(3).get("log.cleanup.policy")).as("appended to Kafka's default").isEqualTo("delete,compact");
        assertThat(metadata.effectiveConfig(topic, 3).cleanupPolicy()).containsExactly("delete", "compact");
    }

    @Test
    void aBadBrokerChangeIsAnInvalidRequestAsKafkaAnswersIt() {
        assertThatThrownBy(() -> alterBroker("1", op(OpType.SET, "broker.id", "7"), op(OpType.SET, "log.dirs", "/x")))
                .isInstanceOf(InvalidRequestException.class)
                .hasMessage("Cannot update these configs dynamically: Set(broker.id, log.dirs)");
        assertThatThrownBy(() -> alterBroker("1", op(OpType.SET, "log.segment.bytes", "1")))
                .isInstanceOf(InvalidRequestException.class).hasMessageContaining("log.segment.bytes");
        assertThatThrownBy(() -> alterBroker("1", op(OpType.SET, "no.such.config", "1")))
                .isInstanceOf(InvalidRequestException.class).hasMessage("Unknown broker config name: no.such.config");
        assertThatThrownBy(() -> alterBroker("1", op(OpType.APPEND, "num.partitions", "1")))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessage("Config value append is not allowed for config key: num.partitions");
        assertThatThrownBy(() -> alterBroker("1", op(OpType.SUBTRACT, "no.such.config", "1")))
                .isInstanceOf(InvalidConfigurationException.class).hasMessage("Unknown config name: no.such.config");
        assertThatThrownBy(() -> alterBroker("4", op(OpType.SET, "num.partitions", "2")))
                .isInstanceOf(InvalidRequestException.class)
                .hasMessage("Unexpected broker id, expected one of [1, 2, 3], but received 4");
        assertThatThrownBy(() -> admin.incrementalAlterConfigs(ConfigResource.Type.GROUP, "g", List.of(), false))
                .isInstanceOf(InvalidRequestException.class).hasMessage("Unsupported resource type GROUP for g");
        assertThat(metadata.brokerConfigs(1).dynamicBrokerConfigs()).isEmpty();
    }
}
