package dev.samsa.junit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.samsa.KafkaCluster;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import dev.samsa.junit.Fixtures.Fixture;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** {@code @EmbeddedKafkaCluster} as a meta-annotation, and inherited by subclasses. */
class ComposedAnnotationTest {

    /** A team's own annotation: every test class of the billing service gets this cluster. */
    @Target(ElementType.TYPE)
    @Retention(RetentionPolicy.RUNTIME)
    @EmbeddedKafkaCluster(brokers = 3, seed = 11, topics = @Topic(name = "invoices", partitions = 2, replicationFactor = 3))
    @interface BillingKafka {
    }

    @BillingKafka
    abstract static class BillingTestBase {
    }

    @BillingKafka
    @Nested
    class Composed {
        @Test
        void theComposedAnnotationConfiguresTheCluster(KafkaCluster cluster) {
            assertThat(cluster.brokers()).hasSize(3);
            assertThat(cluster.seed()).isEqualTo(11);
            assertThat(cluster.partition("invoices", 1).replicas()).hasSize(3);
        }
    }

    @Test
    void aSubclassInheritsTheComposedAnnotation() {
        var results = Fixtures.run(BillingSubclass.class);

        results.testEvents().assertStatistics(stats -> stats.succeeded(1).failed(0));
    }

    /** Gets the cluster through the composed annotation on its superclass: the annotation is @Inherited. */
    @Fixture
    static class BillingSubclass extends BillingTestBase {
        @Test
        void inheritsTheCluster(KafkaCluster cluster) {
            assertThat(cluster.seed()).isEqualTo(11);
        }
    }
}
