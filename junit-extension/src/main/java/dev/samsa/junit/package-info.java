/**
 * JUnit Jupiter support for Samsa: {@link dev.samsa.junit.EmbeddedKafkaCluster} (or
 * {@link dev.samsa.junit.SamsaExtension} with {@code @RegisterExtension}) starts a cluster per class or per test and
 * injects it; {@link dev.samsa.junit.SamsaAssertions} and {@link dev.samsa.junit.SamsaConditions} are the AssertJ and
 * Awaitility helpers.
 *
 * <h2>Threading and parallel execution</h2>
 * The extension holds no mutable state: every cluster lives in the {@code ExtensionContext.Store} of the class or test
 * it belongs to, with its own ports, data directory, clock and threads, so classes and tests may run in parallel. The
 * one JVM-wide thing it writes is the pair of bootstrap system properties named on {@link
 * dev.samsa.junit.EmbeddedKafkaCluster}; with parallel classes the last cluster started wins, so parallel tests use the
 * injected values. Assertions and conditions read the cluster from the calling thread and may be used from any thread.
 *
 * <p>Dependencies: {@code junit-jupiter-api} 5.12 or later, and AssertJ and Awaitility for the helpers; the artifact
 * declares them {@code provided}, as a test classpath brings them.
 *
 * <h2>Spring tests</h2>
 * With spring-test (Spring Framework 6.2 or later) on the classpath, {@code META-INF/spring.factories} registers a
 * context customizer: in a test class that runs with Spring's {@code SpringExtension}, the cluster of
 * {@link dev.samsa.junit.EmbeddedKafkaCluster} belongs to the application context (see its "Spring tests" section).
 * Without spring-test none of those classes is loaded.
 */
package dev.samsa.junit;
