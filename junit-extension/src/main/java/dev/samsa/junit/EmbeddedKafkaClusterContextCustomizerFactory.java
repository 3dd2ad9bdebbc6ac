package dev.samsa.junit;

import dev.samsa.junit.EmbeddedKafkaCluster.Lifecycle;
import java.util.List;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.TestContextAnnotationUtils;
import org.springframework.test.context.TestContextAnnotationUtils.AnnotationDescriptor;

/**
 * Gives a Spring test context the cluster of its test class's {@link EmbeddedKafkaCluster} (registered in
 * {@code META-INF/spring.factories}, so Spring finds it and a project without spring-test never loads it). The
 * annotation is looked up as Spring looks up its own: superclasses, meta-annotations, and enclosing classes of
 * {@code @Nested} classes unless {@code @NestedTestConfiguration(OVERRIDE)} says otherwise.
 */
final class EmbeddedKafkaClusterContextCustomizerFactory implements ContextCustomizerFactory {

    @Override
    public ContextCustomizer createContextCustomizer(Class<?> testClass, List<ContextConfigurationAttributes> configAttributes) {
        AnnotationDescriptor<EmbeddedKafkaCluster> found = find(testClass);
        if (found == null) {
            return null;
        }
        ClusterSpec spec = ClusterSpec.of(found.getAnnotation(), found.getRootDeclaringClass());
        if (spec.lifecycle() == Lifecycle.PER_METHOD) {
            throw new ExtensionConfigurationException(spec.source() + " has lifecycle = PER_METHOD, but in a Spring test"
                    + " the cluster belongs to the application context, which Spring shares between test classes. For a"
                    + " fresh context and cluster per test, use @DirtiesContext(classMode = AFTER_EACH_TEST_METHOD)");
        }
        return new EmbeddedKafkaClusterContextCustomizer(found.getAnnotation(), spec);
    }

    /** The annotation Spring applies to the context of {@code testClass}, or null. */
    static AnnotationDescriptor<EmbeddedKafkaCluster> find(Class<?> testClass) {
        return TestContextAnnotationUtils.findAnnotationDescriptor(testClass, EmbeddedKafkaCluster.class);
    }
}
