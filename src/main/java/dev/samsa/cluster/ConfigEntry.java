package dev.samsa.cluster;

import java.util.List;
import org.apache.kafka.common.config.ConfigDef;

/**
 * One config as DescribeConfigs (and CreateTopics v5+) shows it, as Kafka's ConfigHelper builds it.
 *
 * @param value null for a broker config without a value
 * @param source the source of the first synonym, else DEFAULT_CONFIG
 * @param type the ConfigDef type Kafka defines the config with
 * @param documentation null where Samsa does not report it
 * @param synonyms the config at every level that sets it, most specific first
 */
public record ConfigEntry(String name, String value, Source source, boolean readOnly, ConfigDef.Type type,
                          String documentation, List<Synonym> synonyms) {

    /** Where a value comes from, named as in DescribeConfigs. */
    public enum Source {
        TOPIC_CONFIG, DYNAMIC_BROKER_CONFIG, DYNAMIC_DEFAULT_BROKER_CONFIG, STATIC_BROKER_CONFIG, DEFAULT_CONFIG
    }

    public record Synonym(String name, String value, Source source) {
    }
}
