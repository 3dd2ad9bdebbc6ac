package dev.samsa.cluster;

import dev.samsa.cluster.ConfigEntry.Source;
import dev.samsa.cluster.ConfigEntry.Synonym;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.errors.InvalidRequestException;

/**
 * What DescribeConfigs shows of a topic or a broker, as Kafka's ConfigHelper computes it: each config's value, its
 * source and its synonyms.
 * <ul>
 * <li>Topic: every topic config, its effective value on one broker; source TOPIC_CONFIG (shown by the admin client
 * as DYNAMIC_TOPIC_CONFIG) for an override, else the source of the broker config that supplies the default.
 * Synonyms: the override, then that broker config at each level that sets it (dynamic per broker, dynamic cluster
 * default, static, Kafka's default).</li>
 * <li>Broker "N" (any live broker, Kafka only accepts the receiving one): every broker config Samsa knows, read-only
 * as Kafka marks them. Broker "": the cluster-wide dynamic defaults only.</li>
 * </ul>
 * Not implemented: Kafka's alias names (log.retention.hours, ...); the documentation of broker configs, which Kafka
 * keeps in its server jars, not in kafka-clients.
 */
public final class ConfigHelper {

    private ConfigHelper() {
    }

    /** Every topic config with its effective value and source, sorted by name. */
    public static List<ConfigEntry> describeTopic(Map<String, String> overrides, EffectiveTopicConfig effective,
                                                  BrokerConfigs broker) {
        List<ConfigEntry> entries = new ArrayList<>();
        for (String name : new TreeSet<>(TopicConfigs.names())) {
            String value = effective.valueString(name);
            List<Synonym> synonyms = new ArrayList<>();
            if (overrides.containsKey(name)) {
                synonyms.add(new Synonym(name, value, Source.TOPIC_CONFIG));
            }
            synonyms.addAll(brokerSynonyms(TopicConfigs.serverDefaultProperty(name), broker, true));
            entries.add(new ConfigEntry(name, value, sourceOf(synonyms), false, TopicConfigs.type(name),
                    TopicConfigs.documentation(name), synonyms));
        }
        return entries;
    }

    /**
     * Broker "N": every broker config of that broker; broker "": the cluster-wide dynamic defaults. Sorted by name.
     *
     * @throws InvalidRequestException when the name is neither empty nor the id of a live broker
     */
    public static List<ConfigEntry> describeBroker(String resourceName, ClusterMetadata metadata) {
        boolean perBroker = !resourceName.isEmpty();
        BrokerConfigs configs;
        Set<String> names;
        if (perBroker) {
            configs = metadata.brokerConfigs(liveBrokerId(resourceName, metadata, true));
            names = new TreeSet<>(BrokerConfigs.names());
        } else {
            // Kafka describes only what is set as cluster-wide dynamic default; every broker shares that map.
            configs = metadata.controllerConfigs();
            names = new TreeSet<>(configs.dynamicClusterDefaults().keySet());
        }
        List<ConfigEntry> entries = new ArrayList<>();
        for (String name : names) {
            List<Synonym> synonyms = brokerSynonyms(name, configs, perBroker);
            entries.add(new ConfigEntry(name, perBroker ? configs.get(name) : configs.dynamicClusterDefaults().get(name),
                    sourceOf(synonyms), BrokerConfigs.isReadOnly(name), BrokerConfigs.type(name), null, synonyms));
        }
        return entries;
    }

    /**
     * The id of the live broker a BROKER resource names; Kafka accepts only the receiving broker's, Samsa any live
     * one. The messages are Kafka's: its ConfigHelper's for DescribeConfigs, its ConfigAdminManager's for
     * IncrementalAlterConfigs, which differ in wording.
     *
     * @throws InvalidRequestException when the name is not the id of a live broker
     */
    static int liveBrokerId(String resourceName, ClusterMetadata metadata, boolean describe) {
        int id;
        try {
            id = Integer.parseInt(resourceName);
        } catch (NumberFormatException e) {
            throw new InvalidRequestException((describe ? "Broker" : "Node") + " id must be an integer, but it is: "
                    + resourceName);
        }
        if (!metadata.isAlive(id)) {
            throw new InvalidRequestException("Unexpected broker id, expected one of "
                    + metadata.liveBrokers().stream().map(BrokerInfo::id).toList()
                    + (describe ? " or empty string" : "") + ", but received " + resourceName);
        }
        return id;
    }

    /**
     * A broker config at every level that sets it, most specific first, as Kafka's ConfigHelper.configSynonyms lists
     * them; a cluster-level describe keeps only the dynamic default.
     */
    private static List<Synonym> brokerSynonyms(String name, BrokerConfigs configs, boolean perBroker) {
        List<Synonym> synonyms = new ArrayList<>();
        if (perBroker && configs.dynamicBrokerConfigs().containsKey(name)) {
            synonyms.add(new Synonym(name, configs.dynamicBrokerConfigs().get(name), Source.DYNAMIC_BROKER_CONFIG));
        }
        if (configs.dynamicClusterDefaults().containsKey(name)) {
            synonyms.add(new Synonym(name, configs.dynamicClusterDefaults().get(name), Source.DYNAMIC_DEFAULT_BROKER_CONFIG));
        }
        if (!perBroker) {
            return synonyms;
        }
        if (configs.staticConfigs().containsKey(name)) {
            synonyms.add(new Synonym(name, configs.staticConfigs().get(name), Source.STATIC_BROKER_CONFIG));
        }
        String kafkaDefault = BrokerConfigs.kafkaDefault(name);
        if (kafkaDefault != null) {
            synonyms.add(new Synonym(name, kafkaDefault, Source.DEFAULT_CONFIG));
        }
        return synonyms;
    }

    private static Source sourceOf(List<Synonym> synonyms) {
        return synonyms.isEmpty() ? Source.DEFAULT_CONFIG : synonyms.get(0).source();
    }
}
