package dev.samsa.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.samsa.log.LogConfig;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

class TopicConfigsTest {

    private static BrokerConfigs broker(Map<String, String> staticConfigs) {
        return new BrokerConfigs(staticConfigs, new HashMap<>());
    }

    @Test
    void withNothingSetEveryConfigHasKafkasDefault() {
        EffectiveTopicConfig config = TopicConfigs.effective(Map.of(), broker(Map.of()));

        assertThat(config.cleanupPolicy()).containsExactly("delete");
        assertThat(config.delete()).isTrue();
        assertThat(config.minInsyncReplicas()).isEqualTo(1);
        assertThat(config.uncleanLeaderElectionEnable()).isFalse();
        assertThat(config.retentionMs()).isEqualTo(604_800_000L);
        assertThat(config.retentionBytes()).isEqualTo(-1L);
        assertThat(config.logConfig().segmentBytes()).isEqualTo(1_073_741_824);
        assertThat(config.logConfig().maxMessageBytes()).isEqualTo(1_048_588);
        assertThat(config.logConfig().timestampType()).isEqualTo(TimestampType.CREATE_TIME);
        assertThat(config.logConfig().compact()).isFalse();
        assertThat(config.logConfig().messageTimestampAfterMaxMs()).isEqualTo(3_600_000L);
        assertThat(config.valueString("min.cleanable.dirty.ratio")).isEqualTo("0.5");
        assertThat(config.valueString("flush.messages")).isEqualTo(Long.toString(Long.MAX_VALUE));
    }

    @Test
    void anOverrideBeatsTheBrokerConfigWhichBeatsKafkasDefault() {
        BrokerConfigs broker = broker(Map.of("min.insync.replicas", "2", "log.retention.ms", "1000",
                "unclean.leader.election.enable", "true", "log.cleanup.policy", "compact"));

        EffectiveTopicConfig config = TopicConfigs.effective(Map.of("retention.ms", "5", "message.timestamp.type",
                "LogAppendTime"), broker);

        assertThat(config.minInsyncReplicas()).as("broker's").isEqualTo(2);
        assertThat(config.uncleanLeaderElectionEnable()).as("broker's").isTrue();
        assertThat(config.retentionMs()).as("topic's").isEqualTo(5);
        assertThat(config.cleanupPolicy()).containsExactly("compact");
        assertThat(config.delete()).isFalse();
        assertThat(config.logConfig().compact()).isTrue();
        assertThat(config.logConfig().timestampType()).isEqualTo(TimestampType.LOG_APPEND_TIME);
    }

    @Test
    void everyLogConfigFieldComesFromItsOwnTopicConfig() {
        Map<String, String> overrides = new HashMap<>();
        overrides.put("segment.bytes", "2097152");
        overrides.put("segment.ms", "11");
        overrides.put("max.message.bytes", "12");
        overrides.put("message.timestamp.type", "LogAppendTime");
        overrides.put("flush.messages", "13");
        overrides.put("flush.ms", "14");
        overrides.put("index.interval.bytes", "15");
        overrides.put("cleanup.policy", "compact");
        overrides.put("message.timestamp.before.max.ms", "16");
        overrides.put("message.timestamp.after.max.ms", "17");

        LogConfig log = TopicConfigs.effective(overrides, broker(Map.of())).logConfig();

        assertThat(log).isEqualTo(new LogConfig(2_097_152, 11, 12, TimestampType.LOG_APPEND_TIME, 13, 14, 15, true, 16, 17));
    }

    @Test
    void aDynamicBrokerConfigBeatsTheStaticOne() {
        Map<String, String> clusterDefaults = new HashMap<>();
        BrokerConfigs broker = new BrokerConfigs(Map.of("min.insync.replicas", "2"), clusterDefaults);
        clusterDefaults.put("min.insync.replicas", "3");
        assertThat(TopicConfigs.effective(Map.of(), broker).minInsyncReplicas()).isEqualTo(3);

        broker.dynamicBrokerConfigs().put("min.insync.replicas", "4");
        assertThat(TopicConfigs.effective(Map.of(), broker).minInsyncReplicas()).isEqualTo(4);
    }

    @Test
    void validationNamesTheBadConfig() {
        assertThatThrownBy(() -> TopicConfigs.validate(Map.of("retention.minutes", "1")))
                .isInstanceOf(InvalidConfigurationException.class).hasMessage("Unknown topic config name: retention.minutes");
        assertThatThrownBy(() -> TopicConfigs.validate(Map.of("retention.ms", "soon")))
                .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("retention.ms").hasMessageContaining("soon");
        assertThatThrownBy(() -> TopicConfigs.validate(Map.of("min.insync.replicas", "0")))
                .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("Value must be at least 1");
        assertThatThrownBy(() -> TopicConfigs.validate(Map.of("segment.bytes", "1024")))
                .as("Kafka 4's minimum of 1 MiB").isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("at least 1048576");
        assertThatThrownBy(() -> TopicConfigs.validate(Map.of("cleanup.policy", "compact,shred")))
                .isInstanceOf(InvalidConfigurationException.class).hasMessageContaining("shred");
        Map<String, String> nullValue = new LinkedHashMap<>();
        nullValue.put("retention.ms", null);
        assertThatThrownBy(() -> TopicConfigs.validate(nullValue))
                .isInstanceOf(InvalidConfigurationException.class).hasMessage("Null value not supported for topic config retention.ms");
        TopicConfigs.validate(Map.of("retention.ms", " -1 ", "cleanup.policy", "compact,delete"));
    }

    @Test
    void aBrokerConfigValidatesAsTheTopicConfigItBacks() {
        assertThatThrownBy(() -> BrokerConfigs.validate("log.segment.bytes", "1024"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("at least 1048576");
        assertThatThrownBy(() -> BrokerConfigs.validate("log.retention.minutes", "1"))
                .isInstanceOf(ConfigException.class).hasMessage("Unknown broker config name: log.retention.minutes");
        BrokerConfigs.validate("log.segment.bytes", "1048576");
    }

    @Test
    void kafkasDefaultsAreKeptOnce() {
        assertThat(TopicConfigs.kafkaDefault("cleanup.policy")).isEqualTo("delete");
        assertThat(BrokerConfigs.kafkaDefault("log.cleanup.policy")).as("taken from the topic config it backs")
                .isEqualTo("delete");
        assertThat(BrokerConfigs.kafkaDefault("log.segment.bytes")).isEqualTo(TopicConfigs.kafkaDefault("segment.bytes"));
        assertThat(BrokerConfigs.kafkaDefault("log.retention.ms")).as("Kafka's default comes from log.retention.hours")
                .isNull();
        assertThat(broker(Map.of()).get("log.retention.ms")).isEqualTo("604800000");
        assertThat(TopicConfigs.documentation("retention.ms")).contains("retain a log");
        assertThat(TopicConfigs.topicConfigOf("log.cleanup.policy")).isEqualTo("cleanup.policy");
        assertThat(TopicConfigs.topicConfigOf("num.partitions")).isNull();
        assertThat(TopicConfigs.isList("cleanup.policy")).isTrue();
        assertThat(TopicConfigs.isList("retention.ms")).isFalse();
        assertThat(TopicConfigs.isList("no.such.config")).isFalse();
        assertThat(List.copyOf(TopicConfigs.names())).hasSize(23);
    }
}
