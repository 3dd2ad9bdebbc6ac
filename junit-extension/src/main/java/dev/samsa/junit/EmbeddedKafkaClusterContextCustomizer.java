package dev.samsa.junit;

import dev.samsa.KafkaCluster;
import java.util.List;
import java.util.Map;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.DefaultSingletonBeanRegistry;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.MutablePropertySources;
import org.springframework.core.env.PropertySource;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.MergedContextConfiguration;

/**
 * Starts the cluster with the Spring application context and closes it when the context closes (at the end of the
 * test run, on eviction from Spring's context cache, or after {@code @DirtiesContext}), so the cluster lives exactly
 * as long as the KafkaTemplates and listener containers that talk to it.
 *
 * <p>The customizer is part of the context's cache key: classes whose annotations configure the same cluster (and the
 * same context otherwise) share one context and one cluster; a different cluster configuration gets its own context.
 *
 * <p>The context gets the cluster as beans {@value #CLUSTER_BEAN} ({@link KafkaCluster}) and {@value #CLOCK_BEAN}
 * ({@link dev.samsa.time.ClusterClock}), and its bootstrap servers as the properties {@value #SPRING_KAFKA_BOOTSTRAP_SERVERS}
 * (so Spring Boot's auto-configured clients use it), {@value EmbeddedKafkaCluster#SPRING_BOOTSTRAP_SERVERS_PROPERTY} and
 * {@value EmbeddedKafkaCluster#BOOTSTRAP_SERVERS_PROPERTY}. These rank below the properties the test declares itself
 * ({@code @SpringBootTest(properties)}, {@code @TestPropertySource}, {@code @DynamicPropertySource}), which may therefore
 * override or rename them, and above everything else (application.properties, system properties).
 */
final class EmbeddedKafkaClusterContextCustomizer implements ContextCustomizer {

    static final String CLUSTER_BEAN = "samsaKafkaCluster";
    static final String CLOCK_BEAN = "samsaClusterClock";
    static final String SPRING_KAFKA_BOOTSTRAP_SERVERS = "spring.kafka.bootstrap-servers";
    static final String PROPERTY_SOURCE = "Samsa cluster";
    /** Spring's names for the property sources a test declares (TestPropertySourceUtils, DynamicValuesPropertySource). */
    private static final List<String> TEST_PROPERTY_SOURCES = List.of("Inlined Test Properties", "Dynamic Test Properties");

    /** The cache key: the cluster's configuration, equal for equal attribute values wherever the annotation sits. */
    private final EmbeddedKafkaCluster annotation;
    private final ClusterSpec spec;

    EmbeddedKafkaClusterContextCustomizer(EmbeddedKafkaCluster annotation, ClusterSpec spec) {
        this.annotation = annotation;
        this.spec = spec;
    }

    @Override
    public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration mergedConfig) {
        if (mergedConfig.getParent() != null) {
            return; // in a @ContextHierarchy the root context's cluster serves all: children see its beans and properties
        }
        RunningCluster running = RunningCluster.start(spec);
        ConfigurableListableBeanFactory beans = context.getBeanFactory();
        // Registered before anything else can fail, so a context that fails to refresh still closes it.
        ((DefaultSingletonBeanRegistry) beans).registerDisposableBean(CLUSTER_BEAN, running::close);
        KafkaCluster cluster = running.cluster();
        beans.registerSingleton(CLUSTER_BEAN, cluster);
        beans.registerSingleton(CLOCK_BEAN, cluster.clock());

        String bootstrap = cluster.bootstrapServers();
        MapPropertySource properties = new MapPropertySource(PROPERTY_SOURCE, Map.of(
                SPRING_KAFKA_BOOTSTRAP_SERVERS, bootstrap,
                EmbeddedKafkaCluster.SPRING_BOOTSTRAP_SERVERS_PROPERTY, bootstrap,
                EmbeddedKafkaCluster.BOOTSTRAP_SERVERS_PROPERTY, bootstrap));
        MutablePropertySources sources = context.getEnvironment().getPropertySources();
        String lastDeclaredByTheTest = null;
        for (PropertySource<?> source : sources) {
            if (TEST_PROPERTY_SOURCES.contains(source.getName())) {
                lastDeclaredByTheTest = source.getName();
            }
        }
        if (lastDeclaredByTheTest == null) {
            sources.addFirst(properties);
        } else {
            sources.addAfter(lastDeclaredByTheTest, properties);
        }
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof EmbeddedKafkaClusterContextCustomizer customizer && annotation.equals(customizer.annotation);
    }

    @Override
    public int hashCode() {
        return annotation.hashCode();
    }
}
