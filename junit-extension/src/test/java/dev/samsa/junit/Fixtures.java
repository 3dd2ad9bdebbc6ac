package dev.samsa.junit;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.io.IOException;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.discovery.ClassSelector;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Events;

/**
 * Runs fixture classes (test classes that exist to be run by a test, some failing on purpose) through the JUnit
 * Platform's EngineTestKit, and helpers to look at what they left behind.
 */
final class Fixtures {

    /** Configuration parameter that {@link Fixture} classes need in order to run. */
    static final String ENABLED = "dev.samsa.junit.fixtures";

    private Fixtures() {
    }

    static EngineExecutionResults run(Class<?>... classes) {
        return run(Map.of(), classes);
    }

    static EngineExecutionResults run(Map<String, String> configuration, Class<?>... classes) {
        return EngineTestKit.engine("junit-jupiter")
                .configurationParameter(ENABLED, "true")
                .configurationParameters(configuration)
                .selectors(Arrays.stream(classes).map(c -> selectClass(c)).toArray(ClassSelector[]::new))
                .execute();
    }

    /** The exceptions of the failed events among {@code events}. */
    static List<Throwable> failures(Events events) {
        return events.failed().stream()
                .map(e -> e.getRequiredPayload(TestExecutionResult.class).getThrowable().orElseThrow())
                .toList();
    }

    static boolean acceptsConnections(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 2_000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Marks a fixture: it runs only through {@link Fixtures#run}, never on its own in the build (where some would fail
     * on purpose).
     */
    @Target(ElementType.TYPE)
    @Retention(RetentionPolicy.RUNTIME)
    @ExtendWith(OnlyThroughFixtures.class)
    @interface Fixture {
    }

    static final class OnlyThroughFixtures implements ExecutionCondition {
        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
            return context.getConfigurationParameter(ENABLED).isPresent()
                    ? ConditionEvaluationResult.enabled("run through Fixtures.run")
                    : ConditionEvaluationResult.disabled("a fixture, run only through Fixtures.run");
        }
    }
}
