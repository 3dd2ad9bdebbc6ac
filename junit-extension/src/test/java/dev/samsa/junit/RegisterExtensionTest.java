package dev.samsa.junit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.samsa.KafkaCluster;
import dev.samsa.time.ClusterClock;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A cluster configured in code through a static {@code @RegisterExtension} field. */
class RegisterExtensionTest {

    @RegisterExtension
    static final SamsaExtension kafka = SamsaExtension.builder()
            .brokers(2)
            .topic("payments", 2, 2)
            .brokerConfig("message.max.bytes", "2000000")
            .manualClock(Instant.parse("2031-06-01T00:00:00Z"))
            .seed(7)
            .build();

    @Test
    void theClusterIsConfiguredByTheBuilder(KafkaCluster cluster, ClusterClock clock) {
        assertThat(cluster.brokers()).hasSize(2);
        assertThat(cluster.seed()).isEqualTo(7);
        assertThat(clock.isManual()).isTrue();
        assertThat(clock.instant()).isAfterOrEqualTo(Instant.parse("2031-06-01T00:00:00Z"));
        assertThat(cluster.partition("payments", 1).replicas()).hasSize(2);
    }

    @Test
    void bootstrapServersAreInjectedToo(KafkaCluster cluster, @BootstrapServers String bootstrap) {
        assertThat(bootstrap).isEqualTo(cluster.bootstrapServers());
    }
}
