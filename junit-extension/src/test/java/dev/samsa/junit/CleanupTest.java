package dev.samsa.junit;

import static org.assertj.core.api.Assertions.assertThat;

import org.assertj.core.api.InstanceOfAssertFactories;

import dev.samsa.KafkaCluster;
import dev.samsa.junit.Fixtures.Fixture;
import java.nio.file.Files;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The store closes the cluster however the class ends. */
class CleanupTest {

    @Fixture
    @EmbeddedKafkaCluster
    static class FailingBeforeAll {
        static final AtomicReference<KafkaCluster> cluster = new AtomicReference<>();

        @BeforeAll
        static void beforeAll(KafkaCluster cluster) {
            FailingBeforeAll.cluster.set(cluster);
            assertThat(Fixtures.acceptsConnections(cluster.broker(1).port())).isTrue();
            throw new IllegalStateException("the test data could not be loaded");
        }

        @Test
        void neverRuns() {
        }
    }

    @Test
    void aFailingBeforeAllStillClosesTheClusterAndRestoresTheSystemProperties() {
        String before = System.getProperty(EmbeddedKafkaCluster.SPRING_BOOTSTRAP_SERVERS_PROPERTY);

        var results = Fixtures.run(FailingBeforeAll.class);

        assertThat(Fixtures.failures(results.containerEvents())).singleElement(InstanceOfAssertFactories.THROWABLE)
                .isInstanceOf(IllegalStateException.class).hasMessage("the test data could not be loaded");
        KafkaCluster cluster = FailingBeforeAll.cluster.get();
        assertThat(Fixtures.acceptsConnections(cluster.broker(1).port())).as("port of %s", cluster).isFalse();
        assertThat(Files.exists(cluster.dataDirectory())).as("data directory %s", cluster.dataDirectory()).isFalse();
        assertThat(System.getProperty(EmbeddedKafkaCluster.SPRING_BOOTSTRAP_SERVERS_PROPERTY)).isEqualTo(before);
    }
}
