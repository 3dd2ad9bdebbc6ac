package dev.samsa.junit;

import dev.samsa.BrokerError;
import dev.samsa.KafkaCluster;
import dev.samsa.junit.EmbeddedKafkaCluster.Lifecycle;
import dev.samsa.time.ClusterClock;
import java.lang.reflect.Constructor;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ExtensionContext.Namespace;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;
import org.opentest4j.TestAbortedException;

/**
 * The JUnit Jupiter extension behind {@link EmbeddedKafkaCluster}; also usable on its own with
 * {@code @RegisterExtension} for a cluster configured in code:
 *
 * <pre>{@code
 * @RegisterExtension
 * static SamsaExtension kafka = SamsaExtension.builder().brokers(3).topic("orders", 6, 3).build();
 * }</pre>
 *
 * <h2>State</h2>
 * The extension keeps no state of its own, so one instance serves classes running in parallel. Each cluster lives in
 * the {@link ExtensionContext.Store} of the context it belongs to (the class, or the test for
 * {@link Lifecycle#PER_METHOD}) under this extension's namespace, and the store closes it when that context ends,
 * however it ends. The one field is the immutable configuration of the {@code @RegisterExtension} form; the
 * {@code @EmbeddedKafkaCluster} form reads the annotation instead.
 *
 * <p>In a test class that runs with Spring's {@code SpringExtension} ({@code @SpringBootTest}, {@code @SpringJUnitConfig})
 * the annotation's cluster belongs to the Spring application context instead, which Spring shares between classes
 * and closes when it closes ({@link EmbeddedKafkaClusterContextCustomizer}); the extension then starts and closes
 * nothing, and injects the context's cluster.
 *
 * <h2>Failures</h2>
 * After each test that failed (in a {@code @BeforeEach} method, the test, or an {@code @AfterEach} method), the events
 * of the test's window are printed and published as report entry {@value EmbeddedKafkaCluster#TIMELINE_REPORT_KEY}.
 * This runs as an {@link AfterEachCallback} reading {@link ExtensionContext#getExecutionException()}: a
 * {@code TestWatcher} would come after a per-test cluster is closed, and a {@code TestExecutionExceptionHandler}
 * would miss failures of {@code @BeforeEach} and {@code @AfterEach} methods. The failure itself is left alone.
 *
 * <p>A test during which the cluster recorded an internal error ({@link KafkaCluster#internalErrors()}: a broker-side
 * bug, or a broken classpath) fails with an {@link AssertionError} whose cause is the broker-side exception, even if
 * its assertions passed, because the client only saw UNKNOWN_SERVER_ERROR or a closed connection. A test that failed
 * anyway keeps its own failure, with that error added as suppressed.
 */
public final class SamsaExtension implements BeforeAllCallback, BeforeEachCallback, AfterEachCallback, ParameterResolver {

    private static final Namespace CLUSTERS = Namespace.create(SamsaExtension.class, "cluster");
    private static final Namespace TEST_WINDOWS = Namespace.create(SamsaExtension.class, "timeline-window");
    private static final String SPRING_EXTENSION = "org.springframework.test.context.junit.jupiter.SpringExtension";

    /** Null for the annotation form. */
    private final ClusterSpec registered;

    /** For {@code @ExtendWith(SamsaExtension.class)} and {@link EmbeddedKafkaCluster}; configured by the annotation. */
    public SamsaExtension() {
        this(null);
    }

    private SamsaExtension(ClusterSpec registered) {
        this.registered = registered;
    }

    /** Configures a cluster in code, for {@code @RegisterExtension}. */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        ClusterSpec spec = spec(context);
        if (spec.lifecycle() == Lifecycle.PER_CLASS && !springContextOwnsCluster(context, spec)) {
            running(context, spec, "the class");
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        ClusterSpec spec = spec(context);
        KafkaCluster cluster = cluster(context, spec, "the test");
        // A per-test cluster started for this test (perhaps while its instance was built), so all its events count.
        TimelineWindow window = spec.lifecycle() == Lifecycle.PER_METHOD
                ? TimelineWindow.WHOLE : TimelineWindow.startingNow(cluster);
        context.getStore(TEST_WINDOWS).put(context.getUniqueId(), new WatchedTest(cluster, window));
    }

    /**
     * The cluster a test ran against, kept from its start: by {@code afterEach} a Spring context may have been closed
     * ({@code @DirtiesContext}), and asking Spring again would load a new one.
     */
    private record WatchedTest(KafkaCluster cluster, TimelineWindow window) {
    }

    @Override
    public void afterEach(ExtensionContext context) {
        WatchedTest watched = context.getStore(TEST_WINDOWS).get(context.getUniqueId(), WatchedTest.class);
        if (watched == null) {
            return; // the failure came before this test had a cluster
        }
        KafkaCluster cluster = watched.cluster();
        TimelineWindow window = watched.window();
        Optional<Throwable> failure = context.getExecutionException();
        boolean failed = failure.isPresent() && !(failure.get() instanceof TestAbortedException);
        List<BrokerError> internalErrors = window.internalErrorsOf(cluster);
        if (failed || !internalErrors.isEmpty()) {
            String report = TimelineWindow.report(context.getDisplayName(), cluster, window.eventsOf(cluster));
            System.out.println(report);
            System.out.println("Samsa HTML timeline: " + writeHtmlTimeline(context, cluster));
            context.publishReportEntry(EmbeddedKafkaCluster.TIMELINE_REPORT_KEY, report);
        }
        if (internalErrors.isEmpty()) {
            return;
        }
        AssertionError internal = internalErrorsFailure(internalErrors);
        if (failure.isPresent()) {
            failure.get().addSuppressed(internal); // the test's own failure stays first
        } else {
            throw internal;
        }
    }

    /**
     * The cluster's whole kept timeline as a page under the build directory, named and titled after the test (its class
     * and method, and the seed); a path a person opens in a browser beside the text timeline.
     */
    private static java.nio.file.Path writeHtmlTimeline(ExtensionContext context, KafkaCluster cluster) {
        String name = (context.getRequiredTestClass().getName() + "." + context.getDisplayName())
                .replaceAll("[^A-Za-z0-9._-]+", "_");
        java.nio.file.Path path = java.nio.file.Path.of("target", "samsa-timelines", name + ".html").toAbsolutePath();
        String title = context.getRequiredTestClass().getName() + "." + context.getTestMethod()
                .map(m -> m.getName() + "()").orElse(context.getDisplayName()) + " (seed " + cluster.seed() + ")";
        try {
            return cluster.events().writeHtml(path, title);
        } catch (java.io.UncheckedIOException e) {
            return java.nio.file.Path.of("(not written: " + e.getCause().getMessage() + ")");
        }
    }

    /** The broker-side failures as one assertion error: the first is its cause, any others are suppressed. */
    private static AssertionError internalErrorsFailure(List<BrokerError> errors) {
        BrokerError first = errors.get(0);
        AssertionError failure = new AssertionError("The Samsa cluster met " + (errors.size() == 1 ? "an internal error"
                : errors.size() + " internal errors") + " during this test (" + first + "); the broker-side stack trace is "
                + "the cause. The client saw UNKNOWN_SERVER_ERROR or a closed connection. A LinkageError means a "
                + "kafka-clients version the broker was not built for; anything else is a Samsa bug worth reporting.",
                first.error());
        errors.stream().skip(1).forEach(e -> failure.addSuppressed(e.error()));
        return failure;
    }

    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        if (parameterContext.isAnnotated(BootstrapServers.class)) {
            return true;
        }
        Class<?> type = parameterContext.getParameter().getType();
        if (type != KafkaCluster.class && type != ClusterClock.class) {
            return false;
        }
        // A parameter that Spring autowires (@Autowired, or one of an autowired constructor's) is left to Spring, which
        // injects the same beans; JUnit refuses a parameter that two extensions resolve.
        return !(springContextOwnsCluster(extensionContext, spec(extensionContext))
                && SpringTestContexts.autowires(parameterContext, extensionContext));
    }

    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        Class<?> type = parameterContext.getParameter().getType();
        if (parameterContext.isAnnotated(BootstrapServers.class) && type != String.class) {
            throw new ExtensionConfigurationException("@BootstrapServers parameter '" + parameterContext.getParameter().getName()
                    + "' of " + parameterContext.getDeclaringExecutable() + " must be a String; it is a " + type.getName());
        }
        boolean constructor = parameterContext.getDeclaringExecutable() instanceof Constructor<?>;
        String where = constructor
                ? "the constructor of " + parameterContext.getDeclaringExecutable().getDeclaringClass().getName()
                : parameterContext.getDeclaringExecutable().getName() + "()";
        ClusterSpec spec = spec(extensionContext);
        if (constructor && spec.lifecycle() == Lifecycle.PER_METHOD && extensionContext.getTestMethod().isEmpty()) {
            // Before 5.12 JUnit never asks getTestInstantiationExtensionContextScope, so a constructor sees only the
            // class: the per-test cluster it asks for does not exist yet.
            throw new ExtensionConfigurationException(spec.source() + " has lifecycle = PER_METHOD; injecting its"
                    + " cluster into " + where + " needs JUnit Jupiter 5.12 or later (this is "
                    + junitVersion() + "). Upgrade JUnit, or take the cluster as a parameter of the test or its"
                    + " @BeforeEach methods");
        }
        KafkaCluster cluster = cluster(extensionContext, spec, where);
        if (type == ClusterClock.class) {
            return cluster.clock();
        }
        return type == KafkaCluster.class ? cluster : cluster.bootstrapServers();
    }

    private static String junitVersion() {
        String version = ExtensionContext.class.getPackage().getImplementationVersion();
        return version == null ? "an unknown version" : version;
    }

    /**
     * Constructors get the test's own context, so that a per-test cluster injected into the constructor is the one
     * the test sees.
     */
    @Override
    public ExtensionContextScope getTestInstantiationExtensionContextScope(ExtensionContext rootContext) {
        return ExtensionContextScope.TEST_METHOD;
    }

    /**
     * The configuration that applies to {@code context}: this extension's own when registered in code, else the
     * nearest {@link EmbeddedKafkaCluster}, looking at the test class (its superclasses and meta-annotations
     * included) and then its enclosing classes.
     *
     * @throws ExtensionConfigurationException when a registered extension meets the annotation too
     */
    private ClusterSpec spec(ExtensionContext context) {
        Optional<Class<?>> testClass = context.getTestClass();
        Optional<ClusterSpec> annotated = Optional.empty();
        for (Class<?> c = testClass.orElse(null); c != null && annotated.isEmpty(); c = c.getEnclosingClass()) {
            Class<?> declaring = c;
            annotated = AnnotationSupport.findAnnotation(c, EmbeddedKafkaCluster.class).map(a -> ClusterSpec.of(a, declaring));
        }
        if (registered != null) {
            if (annotated.isPresent()) {
                throw new ExtensionConfigurationException(annotated.get().source() + " and a SamsaExtension registered with "
                        + "@RegisterExtension both configure a cluster; one class gets one cluster, so use one or the other");
            }
            return registered;
        }
        return annotated.orElseGet(() -> builder().source("@ExtendWith(SamsaExtension.class) on "
                + testClass.map(Class::getName).orElse(context.getDisplayName())).spec());
    }

    /**
     * The cluster of {@code context}, started in its owner's store if this is the first to ask.
     *
     * @param requester names who asks, for the message when a per-test cluster is asked for outside a test
     */
    private static RunningCluster running(ExtensionContext context, ClusterSpec spec, String requester) {
        ExtensionContext owner = owner(context, spec).orElseThrow(() -> new ExtensionConfigurationException(
                spec.source() + " has lifecycle = PER_METHOD, a fresh cluster for each test, so " + requester
                + " (outside any test) has no cluster to receive; use lifecycle = PER_CLASS, or take the cluster as a "
                + "parameter of the test or its @BeforeEach/@AfterEach methods"));
        return owner.getStore(CLUSTERS).getOrComputeIfAbsent(owner.getUniqueId(), id -> RunningCluster.start(spec),
                RunningCluster.class);
    }

    /** The cluster of {@code context}: its Spring test context's if that owns one, else the extension's own. */
    private static KafkaCluster cluster(ExtensionContext context, ClusterSpec spec, String requester) {
        return springContextOwnsCluster(context, spec)
                ? SpringTestContexts.cluster(context) : running(context, spec, requester).cluster();
    }

    /**
     * Whether the annotation's cluster belongs to the test's Spring application context (see
     * {@link EmbeddedKafkaClusterContextCustomizerFactory}), which starts and closes it; the extension then only hands
     * it out. The check for Spring's extension comes first so that without spring-test no Spring class is loaded.
     */
    private static boolean springContextOwnsCluster(ExtensionContext context, ClusterSpec spec) {
        Optional<Class<?>> testClass = context.getTestClass();
        return spec.declaringClass() != null && testClass.isPresent() && runsWithSpring(testClass.get())
                && SpringTestContexts.ownsCluster(testClass.get());
    }

    /** Whether Spring's {@code SpringExtension} runs the tests of {@code testClass} (as {@code @SpringBootTest} asks). */
    private static boolean runsWithSpring(Class<?> testClass) {
        for (Class<?> c = testClass; c != null; c = c.getEnclosingClass()) {
            for (ExtendWith extendWith : AnnotationSupport.findRepeatableAnnotations(c, ExtendWith.class)) {
                for (Class<?> extension : extendWith.value()) {
                    if (extension.getName().equals(SPRING_EXTENSION)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /**
     * The context whose store holds the cluster: the test itself for {@link Lifecycle#PER_METHOD} (empty outside a
     * test); else the class context of the annotated class, or the outermost class for a registered extension. A
     * {@code @Nested} class thus shares its enclosing class's cluster unless it is annotated itself.
     */
    private static Optional<ExtensionContext> owner(ExtensionContext context, ClusterSpec spec) {
        if (spec.lifecycle() == Lifecycle.PER_METHOD) {
            return context.getTestMethod().isPresent() ? Optional.of(context) : Optional.empty();
        }
        ExtensionContext owner = null;
        for (ExtensionContext c = context; c != null; c = c.getParent().orElse(null)) {
            boolean classContext = c.getElement().filter(Class.class::isInstance).isPresent();
            if (classContext) {
                owner = c;
                if (c.getRequiredTestClass() == spec.declaringClass()) {
                    break;
                }
            }
        }
        return Optional.ofNullable(owner);
    }

    /**
     * Configures the cluster of a {@code @RegisterExtension} field; the settings mirror {@link EmbeddedKafkaCluster}'s
     * attributes, and {@link #configure} reaches the rest of {@link KafkaCluster.Builder}. Use a static field: JUnit
     * calls an instance field's extension only from the first test on, so its cluster would miss {@code @BeforeAll}.
     */
    public static final class Builder {
        private String source = "SamsaExtension registered with @RegisterExtension";
        private int brokers = 1;
        private final List<ClusterSpec.TopicSpec> topics = new ArrayList<>();
        private final Map<String, String> brokerConfigs = new LinkedHashMap<>();
        private Instant manualClockStart;
        private Long seed;
        private int port;
        private Lifecycle lifecycle = Lifecycle.PER_CLASS;
        private Consumer<KafkaCluster.Builder> customizer = builder -> { };

        private Builder() {
        }

        private Builder source(String source) {
            this.source = source;
            return this;
        }

        public Builder brokers(int count) {
            this.brokers = count;
            return this;
        }

        public Builder topic(String name, int partitions, int replicationFactor) {
            return topic(name, partitions, replicationFactor, Map.of());
        }

        public Builder topic(String name, int partitions, int replicationFactor, Map<String, String> configs) {
            topics.add(new ClusterSpec.TopicSpec(name, partitions, replicationFactor, configs));
            return this;
        }

        /** Any broker config Kafka knows, for every broker. */
        public Builder brokerConfig(String name, String value) {
            brokerConfigs.put(name, value);
            return this;
        }

        /** A manual clock starting at {@code start}; each cluster started from this builder gets its own. */
        public Builder manualClock(Instant start) {
            this.manualClockStart = Objects.requireNonNull(start, "start");
            return this;
        }

        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        /** First broker port; broker n listens on {@code port + n - 1}. 0 (the default) picks free ports. */
        public Builder port(int port) {
            this.port = port;
            return this;
        }

        public Builder lifecycle(Lifecycle lifecycle) {
            this.lifecycle = Objects.requireNonNull(lifecycle, "lifecycle");
            return this;
        }

        /**
         * Applied to each cluster's {@link KafkaCluster.Builder} after the settings above, for anything else it offers.
         * Runs once per cluster started, so it must not hand the same clock to two clusters.
         */
        public Builder configure(Consumer<KafkaCluster.Builder> customizer) {
            this.customizer = this.customizer.andThen(Objects.requireNonNull(customizer, "customizer"));
            return this;
        }

        /**
         * @throws ExtensionConfigurationException for fewer than one broker or a port outside 0..65535
         */
        public SamsaExtension build() {
            return new SamsaExtension(spec());
        }

        private ClusterSpec spec() {
            return new ClusterSpec(source, null, brokers, topics, brokerConfigs, manualClockStart, seed, port, lifecycle,
                    customizer);
        }
    }
}
