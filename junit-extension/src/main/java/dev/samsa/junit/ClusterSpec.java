package dev.samsa.junit;

import dev.samsa.KafkaCluster;
import dev.samsa.Security;
import dev.samsa.junit.EmbeddedKafkaCluster.Lifecycle;
import dev.samsa.time.ClusterClock;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;

/**
 * What cluster to start, from {@link EmbeddedKafkaCluster} or {@link SamsaExtension.Builder}. Immutable, so one spec
 * starts any number of clusters (one per class or per test), each with a fresh clock.
 *
 * @param source names where the configuration came from, for error messages
 * @param declaringClass the class carrying the annotation, or null for a registered extension
 * @param manualClockStart start of a manual clock, or null for the system clock
 * @param seed null for a random seed
 * @param customizer applied to the builder last, for settings the annotation does not carry
 */
record ClusterSpec(String source, Class<?> declaringClass, int brokers, List<TopicSpec> topics,
                   Map<String, String> brokerConfigs, Instant manualClockStart, Long seed, int port, Lifecycle lifecycle,
                   Consumer<KafkaCluster.Builder> customizer) {

    ClusterSpec {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(lifecycle, "lifecycle");
        Objects.requireNonNull(customizer, "customizer");
        topics = List.copyOf(topics);
        brokerConfigs = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(brokerConfigs));
        if (brokers < 1) {
            throw new ExtensionConfigurationException(source + ": a cluster needs at least one broker; got brokers = " + brokers);
        }
        if (port < 0 || port > 65535) {
            throw new ExtensionConfigurationException(source + ": port must be 0 (free ports) or 1..65535; got " + port);
        }
    }

    record TopicSpec(String name, int partitions, int replicationFactor, Map<String, String> configs) {
        TopicSpec {
            configs = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(configs));
        }
    }

    static ClusterSpec of(EmbeddedKafkaCluster annotation, Class<?> declaringClass) {
        String source = "@EmbeddedKafkaCluster on " + declaringClass.getName();
        List<TopicSpec> topics = new ArrayList<>();
        for (Topic topic : annotation.topics()) {
            topics.add(new TopicSpec(topic.name(), topic.partitions(), topic.replicationFactor(),
                    keyValues(source + ", @Topic(name = \"" + topic.name() + "\") config", topic.config())));
        }
        Instant start = null;
        if (annotation.clock() == EmbeddedKafkaCluster.ClockType.MANUAL) {
            try {
                start = Instant.parse(annotation.clockStart());
            } catch (DateTimeParseException e) {
                throw new ExtensionConfigurationException(source + ": clockStart must be an ISO-8601 instant such as \""
                        + EmbeddedKafkaCluster.DEFAULT_CLOCK_START + "\"; got \"" + annotation.clockStart() + "\"", e);
            }
        }
        Long seed = annotation.seed() == EmbeddedKafkaCluster.RANDOM_SEED ? null : annotation.seed();
        Security security = security(source, annotation);
        return new ClusterSpec(source, declaringClass, annotation.brokers(), topics,
                keyValues(source + ", brokerConfig", annotation.brokerConfig()), start, seed, annotation.port(),
                annotation.lifecycle(), builder -> {
                    builder.transactionVersion(annotation.transactionVersion());
                    if (security != null) {
                        builder.security(security);
                    }
                });
    }

    /**
     * The annotation's listeners, users, mechanisms and ACLs; null for the default single PLAINTEXT listener without
     * an authorizer.
     */
    private static Security security(String source, EmbeddedKafkaCluster annotation) {
        Security.Protocol[] listeners = annotation.listeners();
        boolean acls = annotation.acls().length > 0 || annotation.superUsers().length > 0;
        if (listeners.length == 0) {
            if (annotation.users().length > 0 || annotation.saslMechanisms().length > 0 || annotation.mutualTls()) {
                throw new ExtensionConfigurationException(source + ": users, saslMechanisms and mutualTls need listeners, "
                        + "e.g. listeners = Security.Protocol.SASL_SSL");
            }
            if (!acls) {
                return null;
            }
            listeners = new Security.Protocol[] {Security.Protocol.PLAINTEXT};
        }
        try {
            Security security = Security.listeners(listeners[0], Arrays.copyOfRange(listeners, 1, listeners.length));
            Security.Mechanism[] mechanisms = annotation.saslMechanisms();
            if (mechanisms.length > 0) {
                security = security.mechanisms(mechanisms[0], Arrays.copyOfRange(mechanisms, 1, mechanisms.length));
            }
            for (String user : annotation.users()) {
                int colon = user.indexOf(':');
                if (colon <= 0) {
                    throw new ExtensionConfigurationException(source + ": users are \"name:password\"; got \"" + user + "\"");
                }
                security = security.user(user.substring(0, colon), user.substring(colon + 1));
            }
            for (String acl : annotation.acls()) {
                security = security.acl(acl);
            }
            if (annotation.superUsers().length > 0) {
                security = security.superUsers(annotation.superUsers());
            }
            return annotation.mutualTls() ? security.mutualTls() : security;
        } catch (IllegalArgumentException e) {
            throw new ExtensionConfigurationException(source + ": " + e.getMessage(), e);
        }
    }

    /**
     * Parses {@code "key=value"} entries; the value may itself contain '='.
     *
     * @throws ExtensionConfigurationException naming {@code what} and the entry without '='
     */
    static Map<String, String> keyValues(String what, String[] entries) {
        Map<String, String> result = new LinkedHashMap<>();
        for (String entry : entries) {
            int eq = entry.indexOf('=');
            if (eq <= 0 || entry.substring(0, eq).isBlank()) {
                throw new ExtensionConfigurationException(what + ": entries are \"key=value\"; got \"" + entry + "\"");
            }
            result.put(entry.substring(0, eq).trim(), entry.substring(eq + 1).trim());
        }
        return result;
    }

    /**
     * Starts a cluster as specified, with its own clock, ports and data directory.
     *
     * @throws ExtensionConfigurationException naming the source when the cluster refuses a setting (an unknown broker
     *     config, a topic Kafka would refuse)
     */
    KafkaCluster start() {
        KafkaCluster.Builder builder;
        try {
            builder = KafkaCluster.builder()
                    .brokers(brokers)
                    .clock(manualClockStart == null ? ClusterClock.system() : ClusterClock.manual(manualClockStart))
                    .port(port);
            if (seed != null) {
                builder.seed(seed);
            }
            brokerConfigs.forEach(builder::brokerConfig);
            for (TopicSpec topic : topics) {
                builder.topic(topic.name(), topic.partitions(), topic.replicationFactor(), topic.configs());
            }
            customizer.accept(builder);
        } catch (IllegalArgumentException e) {
            throw new ExtensionConfigurationException(source + ": " + e.getMessage(), e);
        }
        try {
            return builder.start();
        } catch (IllegalArgumentException e) { // KafkaCluster names a topic Kafka would refuse with one, too
            throw new ExtensionConfigurationException(source + ": cannot start the cluster: " + e.getMessage(), e);
        }
    }
}
