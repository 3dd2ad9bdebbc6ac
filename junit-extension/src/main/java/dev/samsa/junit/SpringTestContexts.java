package dev.samsa.junit;

import dev.samsa.KafkaCluster;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.springframework.test.context.junit.jupiter.SpringExtension;

/**
 * What {@link SamsaExtension} asks of a Spring test context; loaded only for test classes that run with Spring's
 * {@code SpringExtension}, so spring-test stays optional.
 */
final class SpringTestContexts {

    private SpringTestContexts() {
    }

    /** Whether Spring gives the context of {@code testClass} a cluster from its {@link EmbeddedKafkaCluster}. */
    static boolean ownsCluster(Class<?> testClass) {
        return EmbeddedKafkaClusterContextCustomizerFactory.find(testClass) != null;
    }

    /** Whether Spring's own parameter resolver injects this parameter (from the context's beans). */
    static boolean autowires(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return new SpringExtension().supportsParameter(parameterContext, extensionContext);
    }

    /** The cluster of the test's application context, which Spring loads (or takes from its cache) if need be. */
    static KafkaCluster cluster(ExtensionContext context) {
        return SpringExtension.getApplicationContext(context)
                .getBean(EmbeddedKafkaClusterContextCustomizer.CLUSTER_BEAN, KafkaCluster.class);
    }
}
