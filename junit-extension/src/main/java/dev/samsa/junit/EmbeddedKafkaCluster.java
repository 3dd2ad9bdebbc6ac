package dev.samsa.junit;

import dev.samsa.KafkaCluster;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Starts a Samsa {@link dev.samsa.KafkaCluster} for a test class and closes it when the class is done.
 *
 * <pre>{@code
 * @EmbeddedKafkaCluster(brokers = 3, topics = @Topic(name = "orders", partitions = 6, replicationFactor = 3))
 * class OrdersTest {
 *     @Test
 *     void placesAnOrder(KafkaCluster cluster, @BootstrapServers String bootstrap) { ... }
 * }
 * }</pre>
 *
 * <h2>Creation</h2>
 * The cluster starts before the first {@code @BeforeAll} method (or, with {@link Lifecycle#PER_METHOD}, before
 * the first {@code @BeforeEach} method of each test), with free ports and its own temporary data directory unless
 * {@link #port()} asks for fixed ones.
 *
 * <h2>Injection</h2>
 * Constructors, lifecycle methods and test methods may declare parameters of type {@link dev.samsa.KafkaCluster},
 * {@link dev.samsa.time.ClusterClock} and {@code @}{@link BootstrapServers} {@code String}. While the cluster runs,
 * the system properties {@value #SPRING_BOOTSTRAP_SERVERS_PROPERTY} and {@value #BOOTSTRAP_SERVERS_PROPERTY} hold its
 * bootstrap servers, for code that only reads those (Spring's {@code @EmbeddedKafka} convention). They are JVM-wide:
 * when classes run in parallel the last cluster started wins, so parallel tests take the injected values instead.
 *
 * <h2>Scope</h2>
 * {@link Lifecycle#PER_CLASS} (the default) shares one cluster among the tests of the class and its {@code @Nested}
 * classes; {@link Lifecycle#PER_METHOD} gives each test a fresh one. A {@code @Nested} class annotated again gets its
 * own cluster.
 *
 * <h2>Clean up</h2>
 * The cluster is kept in the JUnit {@code ExtensionContext.Store} of the class (or test), so it is closed, its ports
 * released and its data directory deleted however the class ends, a failing {@code @BeforeAll} included. The system
 * properties get their previous values back unless another cluster has set them since.
 *
 * <h2>Spring tests</h2>
 * In a test class that runs with Spring's {@code SpringExtension} ({@code @SpringBootTest}, {@code @SpringJUnitConfig},
 * ...) the cluster belongs to the Spring application context, not to the class: it starts with the context, is shared
 * by every class that gets the same context (the annotation's attributes are part of Spring's context cache key), and
 * closes when the context closes. The context has the beans {@code KafkaCluster} and {@code ClusterClock}, and the
 * properties {@code spring.kafka.bootstrap-servers}, {@value #SPRING_BOOTSTRAP_SERVERS_PROPERTY} and
 * {@value #BOOTSTRAP_SERVERS_PROPERTY}, which the test's own properties override; injection resolves to the same
 * cluster. {@link Lifecycle#PER_METHOD} is refused there ({@code @DirtiesContext} gives a fresh context and cluster).
 *
 * <h2>Failures</h2>
 * When a test fails, the events the cluster recorded while it ran (cluster time, event, details) are printed to
 * standard output and published as the report entry {@value #TIMELINE_REPORT_KEY}.
 *
 * <p>The annotation is {@link Inherited} and may be used as a meta-annotation on a composed annotation of your own.
 * For a cluster configured in code, use {@link SamsaExtension#builder()} with {@code @RegisterExtension} instead.
 */
@Target({ElementType.TYPE, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(SamsaExtension.class)
public @interface EmbeddedKafkaCluster {

    /** The system property Spring Kafka's {@code @EmbeddedKafka} tests read the brokers from. */
    String SPRING_BOOTSTRAP_SERVERS_PROPERTY = "spring.embedded.kafka.brokers";

    /** Samsa's own system property with the bootstrap servers of the running cluster. */
    String BOOTSTRAP_SERVERS_PROPERTY = "samsa.bootstrap.servers";

    /** Key of the report entry that carries the timeline of a failed test. */
    String TIMELINE_REPORT_KEY = "samsa.timeline";

    /** {@link #seed()} value that asks for a random seed (printed in the timeline's first event). */
    long RANDOM_SEED = Long.MIN_VALUE;

    /** The manual clock's default start: a fixed instant, so that runs repeat. */
    String DEFAULT_CLOCK_START = "2026-01-01T00:00:00Z";

    int brokers() default 1;

    /** Topics created before any test code runs. */
    Topic[] topics() default {};

    /** Broker configs as {@code "key=value"}, for every broker; any config Kafka knows. */
    String[] brokerConfig() default {};

    ClockType clock() default ClockType.SYSTEM;

    /** Start of a {@link ClockType#MANUAL} clock, as an ISO-8601 instant ({@code Instant.parse}). */
    String clockStart() default DEFAULT_CLOCK_START;

    /** Seed of every random choice in the cluster; {@link #RANDOM_SEED} (the default) picks one. */
    long seed() default RANDOM_SEED;

    /**
     * The cluster's finalized transaction.version feature: 2 (the default, a fresh Kafka 4.1 cluster's: KIP-890's
     * transaction protocol), or 1 or 0 to test against the protocol of Kafka 3.x brokers (see
     * {@link KafkaCluster.Builder#transactionVersion}).
     */
    int transactionVersion() default 2;

    /** First broker port; broker n listens on {@code port + n - 1}. 0 (the default) picks free ports. */
    int port() default 0;

    Lifecycle lifecycle() default Lifecycle.PER_CLASS;

    /**
     * The cluster's listeners, one per security protocol, the first being the one {@code @BootstrapServers} names;
     * empty (the default) for one PLAINTEXT listener. Clients take their settings from
     * {@code cluster.clientConfig(user)} (see {@link dev.samsa.Security}).
     */
    dev.samsa.Security.Protocol[] listeners() default {};

    /** SASL users as {@code "name:password"}; with {@link #mutualTls()} a name is a client certificate's CN. */
    String[] users() default {};

    /** The SASL mechanisms accepted, the first being the one client configs use; empty for all of Samsa's. */
    dev.samsa.Security.Mechanism[] saslMechanisms() default {};

    /** The SSL and SASL_SSL listeners require client certificates (see {@link dev.samsa.Security#mutualTls()}). */
    boolean mutualTls() default false;

    /**
     * ACLs, one per line as {@link dev.samsa.Security#acl(String)} reads them, e.g.
     * {@code acls = {"User:alice ALLOW READ TOPIC orders", "User:alice ALLOW READ GROUP billing"}}. Any ACL or super
     * user turns the authorizer on (on every listener; with no {@link #listeners()}, the one PLAINTEXT listener, whose
     * clients are User:ANONYMOUS).
     */
    String[] acls() default {};

    /** Users (names as in {@link #users()}) who may do everything: Kafka's super.users. */
    String[] superUsers() default {};

    /** Which {@link dev.samsa.time.ClusterClock} drives the cluster. */
    enum ClockType {
        /** Follows the wall clock. */
        SYSTEM,
        /** Starts at {@link #clockStart()} and moves only when a test calls {@code clock.advance(duration)}. */
        MANUAL
    }

    /** How long one cluster lives. */
    enum Lifecycle {
        /** One cluster for all tests of the class (and its {@code @Nested} classes). */
        PER_CLASS,
        /** A fresh cluster for each test, closed after its {@code @AfterEach} methods. */
        PER_METHOD
    }
}
