package dev.samsa.junit;

import static dev.samsa.junit.SamsaConditions.awaitCluster;
import static org.assertj.core.api.Assertions.assertThat;

import dev.samsa.KafkaCluster;
import dev.samsa.junit.EmbeddedKafkaCluster.Lifecycle;
import dev.samsa.junit.Fixtures.Fixture;
import dev.samsa.time.ClusterClock;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.MapPropertySource;
import org.springframework.kafka.annotation.EnableKafka;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.ContextConfiguration;
import org.springframework.test.context.ContextHierarchy;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.TestPropertySource;
import org.springframework.test.context.junit.jupiter.SpringExtension;
import org.springframework.test.context.junit.jupiter.SpringJUnitConfig;

/**
 * {@code @EmbeddedKafkaCluster} in Spring test contexts (plain Spring and Spring Kafka; the Spring Boot projects in
 * src/it do the same with auto-configuration): the cluster belongs to the context, so classes that share a context
 * share its cluster, and it closes when the context does.
 */
class SpringTestContextTest {

    private static final Map<String, String> IN_ORDER =
            Map.of(ClassOrderer.DEFAULT_ORDER_PROPERTY_NAME, ClassOrderer.OrderAnnotation.class.getName());

    /** An application as Spring Kafka users write one: a template and a listener on the context's bootstrap servers. */
    @Configuration
    @EnableKafka
    static class GreetingsApplication {

        @Bean
        KafkaTemplate<String, String> template(@Value("${spring.kafka.bootstrap-servers}") String bootstrap) {
            return new KafkaTemplate<>(new DefaultKafkaProducerFactory<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                    bootstrap, ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                    ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class)));
        }

        @Bean
        ConcurrentKafkaListenerContainerFactory<String, String> kafkaListenerContainerFactory(
                @Value("${spring.kafka.bootstrap-servers}") String bootstrap) {
            var factory = new ConcurrentKafkaListenerContainerFactory<String, String>();
            factory.setConsumerFactory(new DefaultKafkaConsumerFactory<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                    bootstrap, ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class,
                    ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class,
                    ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest")));
            return factory;
        }

        @Bean
        Greetings greetings() {
            return new Greetings();
        }
    }

    static class Greetings {
        final List<String> received = new CopyOnWriteArrayList<>();

        @KafkaListener(id = "greetings", topics = "greetings")
        void on(String value) {
            received.add(value);
        }
    }

    /** What a fixture class saw, for the test that ran it. */
    record Seen(ApplicationContext context, KafkaCluster cluster) {
    }

    abstract static class SendsAndReceives {
        @Autowired
        ApplicationContext context;
        @Autowired
        KafkaCluster cluster;
        @Autowired
        ClusterClock clock;
        @Autowired
        KafkaTemplate<String, String> template;
        @Autowired
        Greetings greetings;

        Seen sendAndReceive(String greeting, KafkaCluster injected, String bootstrap, ClusterClock injectedClock)
                throws Exception {
            assertThat(injected).as("the extension's cluster").isSameAs(cluster);
            assertThat(bootstrap).isEqualTo(cluster.bootstrapServers())
                    .isEqualTo(context.getEnvironment().getProperty("spring.kafka.bootstrap-servers"))
                    .isEqualTo(context.getEnvironment().getProperty("spring.embedded.kafka.brokers"));
            assertThat(injectedClock).isSameAs(clock).isSameAs(cluster.clock());
            template.send("greetings", greeting).get();
            awaitCluster().until(() -> greetings.received.contains(greeting));
            return new Seen(context, cluster);
        }
    }

    @Fixture
    @Order(1)
    @SpringJUnitConfig(GreetingsApplication.class)
    @EmbeddedKafkaCluster(topics = @Topic(name = "greetings"))
    static class First extends SendsAndReceives {
        static final AtomicReference<Seen> seen = new AtomicReference<>();
        static final AtomicReference<KafkaCluster> beforeAll = new AtomicReference<>();

        @BeforeAll
        static void loadsTheContextEarly(KafkaCluster cluster) {
            beforeAll.set(cluster);
        }

        @Test
        void sends(KafkaCluster injected, @BootstrapServers String bootstrap, ClusterClock clock) throws Exception {
            seen.set(sendAndReceive("from the first class", injected, bootstrap, clock));
        }
    }

    /**
     * The same configuration as {@link First}, so the same context; it closes that context when done. Its parameters
     * are Spring's to inject, and its {@code @Nested} class shares its context.
     */
    @Fixture
    @Order(2)
    @SpringJUnitConfig(GreetingsApplication.class)
    @EmbeddedKafkaCluster(topics = @Topic(name = "greetings"))
    @DirtiesContext
    static class Second extends SendsAndReceives {
        static final AtomicReference<Seen> seen = new AtomicReference<>();
        static final AtomicReference<KafkaCluster> nested = new AtomicReference<>();

        @Test
        void sends(@Autowired KafkaCluster injected, @BootstrapServers String bootstrap, @Autowired ClusterClock clock)
                throws Exception {
            seen.set(sendAndReceive("from the second class", injected, bootstrap, clock));
            assertThat(greetings.received).containsExactly("from the first class", "from the second class");
        }

        @Nested
        class Inner {
            @Test
            void seesTheSameCluster(KafkaCluster injected) {
                assertThat(injected).isSameAs(cluster);
                nested.set(injected);
            }
        }
    }

    /** A base class of the kind many Spring projects share between their tests. */
    @SpringJUnitConfig(GreetingsApplication.class)
    @EmbeddedKafkaCluster(brokers = 2, topics = @Topic(name = "greetings", replicationFactor = 2))
    @DirtiesContext
    abstract static class TwoBrokerTestBase extends SendsAndReceives {
    }

    /** Another cluster configuration, from its base class: another context. */
    @Fixture
    @Order(3)
    static class Third extends TwoBrokerTestBase {
        static final AtomicReference<Seen> seen = new AtomicReference<>();

        @Test
        void sends(KafkaCluster injected, @BootstrapServers String bootstrap, ClusterClock clock) throws Exception {
            seen.set(sendAndReceive("from the third class", injected, bootstrap, clock));
            assertThat(greetings.received).containsExactly("from the third class");
        }
    }

    @Test
    void classesWithTheSameClusterShareOneContextAndItsClusterClosesWithTheContext() {
        var results = Fixtures.run(IN_ORDER, First.class, Second.class, Third.class);

        assertThat(Fixtures.failures(results.allEvents())).isEmpty();
        results.testEvents().assertStatistics(stats -> stats.succeeded(4));
        Seen first = First.seen.get();
        Seen second = Second.seen.get();
        Seen third = Third.seen.get();
        assertThat(second.context()).isSameAs(first.context());
        assertThat(second.cluster()).isSameAs(first.cluster()).isSameAs(Second.nested.get()).isSameAs(First.beforeAll.get());
        assertThat(third.context()).isNotSameAs(first.context());
        assertThat(third.cluster().brokers()).hasSize(2);
        for (KafkaCluster cluster : List.of(first.cluster(), third.cluster())) {
            for (var broker : cluster.brokers()) {
                assertThat(Fixtures.acceptsConnections(broker.port())).as("port of broker %s of %s", broker.id(), cluster)
                        .isFalse();
            }
            assertThat(Files.exists(cluster.dataDirectory())).as("data directory %s", cluster.dataDirectory()).isFalse();
        }
    }

    @Fixture
    @SpringJUnitConfig(initializers = TestProperties.ApplicationProperties.class)
    @EmbeddedKafkaCluster
    @TestPropertySource(properties = {"spring.kafka.bootstrap-servers=kafka.example.com:9092",
            "orders.brokers=${spring.embedded.kafka.brokers}"})
    @DirtiesContext
    static class TestProperties {
        static final AtomicReference<List<String>> seen = new AtomicReference<>();

        @Configuration
        static class NoBeans {
        }

        @DynamicPropertySource
        static void dynamicProperties(DynamicPropertyRegistry registry) {
            registry.add("samsa.bootstrap.servers", () -> "kafka.example.com:9093");
        }

        /** Stands in for the application's own configuration (application.properties), which ranks last. */
        static class ApplicationProperties implements ApplicationContextInitializer<ConfigurableApplicationContext> {
            @Override
            public void initialize(ConfigurableApplicationContext context) {
                context.getEnvironment().getPropertySources().addLast(new MapPropertySource("application",
                        Map.of("spring.embedded.kafka.brokers", "kafka.example.com:9092")));
            }
        }

        @Test
        void overrideOrRenameTheClustersProperties(@Autowired ApplicationContext context, KafkaCluster cluster) {
            var environment = context.getEnvironment();
            seen.set(List.of(cluster.bootstrapServers(), environment.getProperty("spring.kafka.bootstrap-servers"),
                    environment.getProperty("samsa.bootstrap.servers"), environment.getProperty("orders.brokers"),
                    environment.getProperty("spring.embedded.kafka.brokers")));
        }
    }

    @Test
    void theTestsOwnPropertiesRankAboveTheClustersAndTheApplicationsBelow() {
        var results = Fixtures.run(TestProperties.class);

        assertThat(Fixtures.failures(results.allEvents())).isEmpty();
        results.testEvents().assertStatistics(stats -> stats.succeeded(1));
        List<String> seen = TestProperties.seen.get();
        String cluster = seen.get(0);
        assertThat(cluster).startsWith("127.0.0.1:");
        assertThat(seen.subList(1, 5)).containsExactly("kafka.example.com:9092", "kafka.example.com:9093", cluster, cluster);
    }

    @Fixture
    @SpringJUnitConfig(FailingContext.FailingApplication.class)
    @EmbeddedKafkaCluster
    static class FailingContext {
        static final AtomicReference<String> bootstrap = new AtomicReference<>();

        @Configuration
        static class FailingApplication {
            @Bean
            String unreachableDatabase(@Value("${samsa.bootstrap.servers}") String bootstrap) {
                FailingContext.bootstrap.set(bootstrap);
                throw new IllegalStateException("the database is unreachable");
            }
        }

        @Test
        void neverRuns() {
        }
    }

    @Test
    void aContextThatFailsToStartClosesItsCluster() {
        var results = Fixtures.run(FailingContext.class);

        assertThat(Fixtures.failures(results.allEvents())).first(InstanceOfAssertFactories.THROWABLE)
                .hasRootCauseMessage("the database is unreachable");
        String bootstrap = FailingContext.bootstrap.get();
        int port = Integer.parseInt(bootstrap.substring(bootstrap.lastIndexOf(':') + 1));
        assertThat(Fixtures.acceptsConnections(port)).as("port of the cluster at %s", bootstrap).isFalse();
    }

    @Fixture
    @ExtendWith(SpringExtension.class)
    @ContextHierarchy({@ContextConfiguration(classes = GreetingsApplication.class),
            @ContextConfiguration(classes = TestProperties.NoBeans.class)})
    @EmbeddedKafkaCluster(topics = @Topic(name = "greetings"))
    @DirtiesContext
    static class Hierarchy {
        static final AtomicReference<List<KafkaCluster>> seen = new AtomicReference<>();

        @Test
        void oneClusterForTheWholeHierarchy(@Autowired ApplicationContext child, KafkaCluster injected) throws Exception {
            ApplicationContext parent = child.getParent();
            seen.set(List.of(injected, child.getBean(KafkaCluster.class), parent.getBean(KafkaCluster.class)));
            assertThat(child.getBeanNamesForType(KafkaCluster.class)).as("the child's own clusters").isEmpty();
            assertThat(child.getEnvironment().getProperty("spring.kafka.bootstrap-servers"))
                    .isEqualTo(injected.bootstrapServers());
            parent.getBean(KafkaTemplate.class).send("greetings", "from the parent context").get();
            awaitCluster().until(() -> child.getBean(Greetings.class).received.contains("from the parent context"));
        }
    }

    @Test
    void aContextHierarchyHasOneClusterInItsRoot() {
        var results = Fixtures.run(Hierarchy.class);

        assertThat(Fixtures.failures(results.allEvents())).isEmpty();
        results.testEvents().assertStatistics(stats -> stats.succeeded(1));
        List<KafkaCluster> seen = Hierarchy.seen.get();
        assertThat(seen.get(1)).isSameAs(seen.get(0));
        assertThat(seen.get(2)).isSameAs(seen.get(0));
    }

    @Fixture
    @SpringJUnitConfig(TestProperties.NoBeans.class)
    @EmbeddedKafkaCluster(lifecycle = Lifecycle.PER_METHOD)
    static class PerMethod {
        @Test
        void neverRuns() {
        }
    }

    @Test
    void aClusterPerTestIsRefusedInASpringContext() {
        var results = Fixtures.run(PerMethod.class);

        assertThat(Fixtures.failures(results.allEvents())).first(InstanceOfAssertFactories.THROWABLE)
                .hasMessageContaining("lifecycle = PER_METHOD")
                .hasMessageContaining("@DirtiesContext(classMode = AFTER_EACH_TEST_METHOD)");
    }
}
