package dev.samsa.junit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.samsa.KafkaCluster;
import dev.samsa.junit.EmbeddedKafkaCluster.ClockType;
import dev.samsa.time.ClusterClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** Every attribute of the annotation, and every place a cluster can be injected. */
@EmbeddedKafkaCluster(brokers = 2, seed = 42, clock = ClockType.MANUAL, clockStart = "2030-01-01T00:00:00Z",
        topics = @Topic(name = "orders", partitions = 3, replicationFactor = 2, config = "retention.ms=60000"),
        brokerConfig = "message.max.bytes=2000000")
class InjectionTest {

    private static KafkaCluster fromBeforeAll;
    private static String bootstrapFromBeforeAll;
    private final KafkaCluster fromConstructor;
    private KafkaCluster fromBeforeEach;

    InjectionTest(KafkaCluster cluster) {
        this.fromConstructor = cluster;
    }

    @BeforeAll
    static void beforeAll(KafkaCluster cluster, @BootstrapServers String bootstrap) {
        fromBeforeAll = cluster;
        bootstrapFromBeforeAll = bootstrap;
    }

    @BeforeEach
    void beforeEach(KafkaCluster cluster) {
        fromBeforeEach = cluster;
    }

    @Test
    void constructorLifecycleMethodsAndTestsReceiveTheSameCluster(KafkaCluster cluster, @BootstrapServers String bootstrap) {
        assertThat(List.of(fromBeforeAll, fromConstructor, fromBeforeEach)).containsOnly(cluster);
        assertThat(bootstrap).isEqualTo(cluster.bootstrapServers()).isEqualTo(bootstrapFromBeforeAll);
    }

    @Test
    void brokersAndSeedComeFromTheAnnotation(KafkaCluster cluster, @BootstrapServers String bootstrap) {
        assertThat(cluster.brokers()).hasSize(2);
        assertThat(bootstrap.split(",")).hasSize(2).allMatch(address -> address.matches("127\\.0\\.0\\.1:\\d+"));
        assertThat(cluster.seed()).isEqualTo(42);
    }

    @Test
    void theClockIsTheClustersManualClockFromClockStart(ClusterClock clock, KafkaCluster cluster) {
        assertThat(clock).isSameAs(cluster.clock());
        assertThat(clock.isManual()).isTrue();
        Instant before = clock.instant();
        assertThat(before).isAfterOrEqualTo(Instant.parse("2030-01-01T00:00:00Z"));
        // Nothing but this test moves the clock; a minute later is exactly a minute later.
        clock.advance(Duration.ofMinutes(1));
        assertThat(clock.instant()).isEqualTo(before.plus(Duration.ofMinutes(1)));
    }

    @Test
    void topicsAndBrokerConfigsAreInPlaceBeforeTheTest(KafkaCluster cluster) throws Exception {
        try (Admin admin = Admin.create(cluster.adminConfig())) {
            var orders = admin.describeTopics(List.of("orders")).allTopicNames().get().get("orders");
            assertThat(orders.partitions()).hasSize(3).allSatisfy(p -> assertThat(p.replicas()).hasSize(2));
            ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, "orders");
            ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, "1");
            Map<ConfigResource, Config> configs = admin.describeConfigs(List.of(topic, broker)).all().get();
            assertThat(configs.get(topic).get("retention.ms").value()).isEqualTo("60000");
            assertThat(configs.get(broker).get("message.max.bytes").value()).isEqualTo("2000000");
        }
    }

    @Test
    void theSystemPropertiesHoldTheBootstrapServers(@BootstrapServers String bootstrap) {
        assertThat(System.getProperty(EmbeddedKafkaCluster.SPRING_BOOTSTRAP_SERVERS_PROPERTY)).isEqualTo(bootstrap);
        assertThat(System.getProperty(EmbeddedKafkaCluster.BOOTSTRAP_SERVERS_PROPERTY)).isEqualTo(bootstrap);
    }

    @Nested
    class NestedClass {
        @Test
        void sharesTheEnclosingClassCluster(KafkaCluster cluster) {
            assertThat(cluster).isSameAs(fromBeforeAll);
        }
    }

    @Nested
    @EmbeddedKafkaCluster
    class AnnotatedNestedClass {
        @Test
        void getsItsOwnClusterAsConfigured(KafkaCluster cluster) {
            assertThat(cluster).isNotSameAs(fromBeforeAll);
            assertThat(cluster.brokers()).hasSize(1);
            assertThat(cluster.clock().isManual()).isFalse();
        }
    }
}
