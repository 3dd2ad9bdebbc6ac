package dev.samsa.junit;

import static org.assertj.core.api.Assertions.assertThat;

import org.assertj.core.api.InstanceOfAssertFactories;

import dev.samsa.KafkaCluster;
import dev.samsa.junit.EmbeddedKafkaCluster.Lifecycle;
import dev.samsa.junit.Fixtures.Fixture;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ParameterResolutionException;

/** When clusters start and stop, run through the JUnit Platform so that "after the class" can be observed. */
class LifecycleTest {

    @Fixture
    @EmbeddedKafkaCluster
    static class PerClass {
        static final List<KafkaCluster> seen = new CopyOnWriteArrayList<>();

        @BeforeAll
        static void beforeAll(KafkaCluster cluster) {
            seen.add(cluster);
        }

        @Test
        void first(KafkaCluster cluster) {
            seen.add(cluster);
        }

        @Test
        void second(KafkaCluster cluster) {
            seen.add(cluster);
        }
    }

    @Test
    void perClassGivesAllTestsOfTheClassOneClusterAndClosesItAfterTheClass() {
        PerClass.seen.clear();

        Fixtures.run(PerClass.class).testEvents().assertStatistics(stats -> stats.succeeded(2).failed(0));

        assertThat(PerClass.seen).hasSize(3).containsOnly(PerClass.seen.get(0));
        KafkaCluster cluster = PerClass.seen.get(0);
        assertThat(Fixtures.acceptsConnections(cluster.broker(1).port())).as("port of %s after the class", cluster).isFalse();
        assertThat(Files.exists(cluster.dataDirectory())).as("data directory %s after the class", cluster.dataDirectory()).isFalse();
    }

    @Fixture
    @EmbeddedKafkaCluster(lifecycle = Lifecycle.PER_METHOD)
    static class PerMethod {
        /** Test name to the clusters its constructor, @BeforeEach, test and @AfterEach received. */
        static final Map<String, List<KafkaCluster>> seen = new ConcurrentHashMap<>();
        private final KafkaCluster fromConstructor;

        PerMethod(KafkaCluster cluster) {
            this.fromConstructor = cluster;
        }

        @BeforeEach
        void beforeEach(KafkaCluster cluster, TestInfo test) {
            seen.put(test.getDisplayName(), new CopyOnWriteArrayList<>(List.of(fromConstructor, cluster)));
        }

        @Test
        void first(KafkaCluster cluster, TestInfo test) {
            seen.get(test.getDisplayName()).add(cluster);
        }

        @Test
        void second(KafkaCluster cluster, TestInfo test) {
            seen.get(test.getDisplayName()).add(cluster);
        }

        @AfterEach
        void stillRunningInAfterEach(KafkaCluster cluster, TestInfo test) {
            assertThat(Fixtures.acceptsConnections(cluster.broker(1).port())).isTrue();
            seen.get(test.getDisplayName()).add(cluster);
        }
    }

    @Test
    void perMethodGivesEachTestItsOwnClusterFromConstructorToAfterEachAndClosesItAfterTheTest() {
        PerMethod.seen.clear();

        Fixtures.run(PerMethod.class).testEvents().assertStatistics(stats -> stats.succeeded(2).failed(0));

        List<KafkaCluster> first = PerMethod.seen.get("first(KafkaCluster, TestInfo)");
        List<KafkaCluster> second = PerMethod.seen.get("second(KafkaCluster, TestInfo)");
        assertThat(first).hasSize(4).containsOnly(first.get(0));
        assertThat(second).hasSize(4).containsOnly(second.get(0));
        assertThat(first.get(0)).isNotSameAs(second.get(0));
        assertThat(first.get(0).bootstrapServers()).isNotEqualTo(second.get(0).bootstrapServers());
        for (KafkaCluster cluster : List.of(first.get(0), second.get(0))) {
            assertThat(Fixtures.acceptsConnections(cluster.broker(1).port())).as("port of %s after its test", cluster).isFalse();
        }
    }

    @Fixture
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    @EmbeddedKafkaCluster
    static class PerClassInstance {
        static final List<KafkaCluster> seen = new CopyOnWriteArrayList<>();

        // A per-class instance is built before any BeforeAll callback: the cluster starts on this first request.
        PerClassInstance(KafkaCluster cluster) {
            seen.add(cluster);
        }

        @BeforeAll
        void beforeAll(KafkaCluster cluster) {
            seen.add(cluster);
        }

        @Test
        void test(KafkaCluster cluster) {
            seen.add(cluster);
        }
    }

    @Test
    void aPerClassTestInstanceReceivesTheClassClusterInItsConstructor() {
        PerClassInstance.seen.clear();

        Fixtures.run(PerClassInstance.class).testEvents().assertStatistics(stats -> stats.succeeded(1).failed(0));

        assertThat(PerClassInstance.seen).hasSize(3).containsOnly(PerClassInstance.seen.get(0));
    }

    @Fixture
    @EmbeddedKafkaCluster(lifecycle = Lifecycle.PER_METHOD)
    static class PerMethodInBeforeAll {
        @BeforeAll
        static void beforeAll(KafkaCluster cluster) {
        }

        @Test
        void test() {
        }
    }

    @Test
    void aPerMethodClusterCannotBeInjectedIntoBeforeAll() {
        List<Throwable> failures = Fixtures.failures(Fixtures.run(PerMethodInBeforeAll.class).containerEvents());

        assertThat(failures).singleElement(InstanceOfAssertFactories.THROWABLE).isInstanceOf(ParameterResolutionException.class)
                .cause().isInstanceOf(ExtensionConfigurationException.class)
                .hasMessageContaining("@EmbeddedKafkaCluster on " + PerMethodInBeforeAll.class.getName())
                .hasMessageContaining("lifecycle = PER_METHOD")
                .hasMessageContaining("beforeAll()")
                .hasMessageContaining("use lifecycle = PER_CLASS");
    }
}
