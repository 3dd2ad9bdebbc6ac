package dev.samsa.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.samsa.KafkaCluster;
import dev.samsa.junit.EmbeddedKafkaCluster;
import dev.samsa.junit.EmbeddedKafkaCluster.Lifecycle;
import org.junit.jupiter.api.Test;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Events;

/** JUnit 5.10 cannot hand a per-test cluster to a constructor; the failure says which JUnit is needed. */
class OldJUnitConstructorInjectionTest {

    @Test
    void sayThatJUnit512IsNeeded() {
        Events failed = EngineTestKit.engine("junit-jupiter").selectors(selectClass(PerTestClusterInConstructor.class))
                .execute().testEvents().failed();

        assertThat(failed.count()).isEqualTo(1);
        Throwable cause = failed.stream().findFirst().orElseThrow().getRequiredPayload(
                org.junit.platform.engine.TestExecutionResult.class).getThrowable().orElseThrow();
        assertThat(cause).hasMessageContaining("needs JUnit Jupiter 5.12 or later (this is 5.10.5)");
    }

    @EmbeddedKafkaCluster(lifecycle = Lifecycle.PER_METHOD)
    static class PerTestClusterInConstructor {

        private final KafkaCluster cluster;

        PerTestClusterInConstructor(KafkaCluster cluster) {
            this.cluster = cluster;
        }

        @Test
        void usesIt() {
            assertThat(cluster.bootstrapServers()).isNotEmpty();
        }
    }
}
