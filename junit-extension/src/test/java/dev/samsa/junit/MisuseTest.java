package dev.samsa.junit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.samsa.junit.Fixtures.Fixture;
import java.util.List;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Each misuse fails with an ExtensionConfigurationException that names the class and the rule. */
class MisuseTest {

    @Fixture
    @EmbeddedKafkaCluster
    static class BootstrapServersOfWrongType {
        @Test
        void test(@BootstrapServers int bootstrap) {
        }
    }

    @Test
    void bootstrapServersMustBeAString() {
        List<Throwable> failures = Fixtures.failures(Fixtures.run(BootstrapServersOfWrongType.class).testEvents());

        assertThat(failures).singleElement(InstanceOfAssertFactories.THROWABLE)
                .isInstanceOf(ParameterResolutionException.class)
                .cause().isInstanceOf(ExtensionConfigurationException.class)
                .hasMessageContaining("@BootstrapServers parameter")
                .hasMessageContaining("must be a String; it is a int");
    }

    @Fixture
    @EmbeddedKafkaCluster
    static class AnnotatedAndRegistered {
        @RegisterExtension
        static final SamsaExtension kafka = SamsaExtension.builder().build();

        @Test
        void test() {
        }
    }

    @Test
    void aClassIsConfiguredByTheAnnotationOrARegisteredExtensionNotBoth() {
        assertThat(containerFailure(AnnotatedAndRegistered.class))
                .isInstanceOf(ExtensionConfigurationException.class)
                .hasMessageContaining("@EmbeddedKafkaCluster on " + AnnotatedAndRegistered.class.getName())
                .hasMessageContaining("use one or the other");
    }

    @Fixture
    @EmbeddedKafkaCluster(acls = "alice ALLOW READ TOPIC orders")
    static class AclWithoutPrincipalType {
        @Test
        void test() {
        }
    }

    @Test
    void anAclNamesItsPrincipalAsUserColonName() {
        assertThat(containerFailure(AclWithoutPrincipalType.class))
                .isInstanceOf(ExtensionConfigurationException.class)
                .hasMessageContaining(AclWithoutPrincipalType.class.getName())
                .hasMessageContaining("principal is User:name or User:*; got \"alice\"");
    }

    @Fixture
    @EmbeddedKafkaCluster(brokerConfig = "min.insync.replicas")
    static class BrokerConfigWithoutValue {
        @Test
        void test() {
        }
    }

    @Test
    void brokerConfigEntriesAreKeyEqualsValue() {
        assertThat(containerFailure(BrokerConfigWithoutValue.class))
                .isInstanceOf(ExtensionConfigurationException.class)
                .hasMessage("@EmbeddedKafkaCluster on " + BrokerConfigWithoutValue.class.getName()
                        + ", brokerConfig: entries are \"key=value\"; got \"min.insync.replicas\"");
    }

    @Fixture
    @EmbeddedKafkaCluster(brokerConfig = "no.such.config=1")
    static class UnknownBrokerConfig {
        @Test
        void test() {
        }
    }

    @Test
    void anUnknownBrokerConfigIsNamed() {
        assertThat(containerFailure(UnknownBrokerConfig.class))
                .isInstanceOf(ExtensionConfigurationException.class)
                .hasMessageStartingWith("@EmbeddedKafkaCluster on " + UnknownBrokerConfig.class.getName() + ": ")
                .hasMessageContaining("no.such.config");
    }

    @Fixture
    @EmbeddedKafkaCluster(clock = EmbeddedKafkaCluster.ClockType.MANUAL, clockStart = "yesterday")
    static class BadClockStart {
        @Test
        void test() {
        }
    }

    @Test
    void clockStartMustBeAnInstant() {
        assertThat(containerFailure(BadClockStart.class))
                .isInstanceOf(ExtensionConfigurationException.class)
                .hasMessageContaining("clockStart must be an ISO-8601 instant")
                .hasMessageContaining("got \"yesterday\"");
    }

    @Fixture
    @EmbeddedKafkaCluster(brokers = 0)
    static class NoBrokers {
        @Test
        void test() {
        }
    }

    @Test
    void aClusterNeedsABroker() {
        assertThat(containerFailure(NoBrokers.class))
                .isInstanceOf(ExtensionConfigurationException.class)
                .hasMessageContaining("at least one broker; got brokers = 0");
    }

    private static Throwable containerFailure(Class<?> fixture) {
        List<Throwable> failures = Fixtures.failures(Fixtures.run(fixture).containerEvents());
        assertThat(failures).as("container failures of %s", fixture.getSimpleName()).hasSize(1);
        return failures.get(0);
    }

    @EmbeddedKafkaCluster(users = "alice:secret")
    static class UsersWithoutListeners {
        @Test
        void test() {
        }
    }

    @Test
    void usersWithoutAListenerNameTheRule() {
        assertThat(containerFailure(UsersWithoutListeners.class))
                .isInstanceOf(ExtensionConfigurationException.class)
                .hasMessageContaining("@EmbeddedKafkaCluster on " + UsersWithoutListeners.class.getName())
                .hasMessageContaining("users, saslMechanisms and mutualTls need listeners");
    }
}
