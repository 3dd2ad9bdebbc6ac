package dev.samsa.junit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.samsa.BrokerBugs;
import dev.samsa.KafkaCluster;
import dev.samsa.junit.Fixtures.Fixture;
import java.time.Duration;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.UnknownServerException;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.junit.platform.testkit.engine.EngineExecutionResults;

/** A broker-side failure during a test fails that test, with the broker's stack trace, even if the test passed. */
class InternalErrorTest {

    @Fixture
    @EmbeddedKafkaCluster(topics = @Topic(name = "orders"))
    static class MeetingABrokerBug {
        @Test
        void passesOnItsOwn(KafkaCluster cluster) {
            sendIntoABrokerBug(cluster, new NoSuchMethodError("simulated broker bug in a passing test"));
        }

        @Test
        void failsOnItsOwn(KafkaCluster cluster) {
            sendIntoABrokerBug(cluster, new NoSuchMethodError("simulated broker bug in a failing test"));
            throw new AssertionError("the order never arrived");
        }

        @Test
        void meetsNoBug(KafkaCluster cluster) throws Exception {
            try (var producer = new KafkaProducer<String, String>(cluster.producerConfig())) {
                producer.send(new ProducerRecord<>("orders", "fine")).get();
            }
        }

        private static void sendIntoABrokerBug(KafkaCluster cluster, Error bug) {
            BrokerBugs.failNextProduce(cluster, bug);
            try (var producer = new KafkaProducer<String, String>(cluster.producerConfig())) {
                // The client fails at once with UNKNOWN_SERVER_ERROR, and the test goes on as if nothing happened.
                assertThatThrownBy(() -> producer.send(new ProducerRecord<>("orders", "x")).get())
                        .hasCauseInstanceOf(UnknownServerException.class);
                producer.close(Duration.ofSeconds(5));
            }
        }
    }

    @Test
    void theTestDuringWhichTheBrokerFailedFailsWithTheBrokerSideCause() {
        EngineExecutionResults results = Fixtures.run(MeetingABrokerBug.class);

        results.testEvents().assertStatistics(stats -> stats.succeeded(1).failed(2));
        assertThat(failure(results, "passesOnItsOwn(KafkaCluster)"))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("internal error during this test")
                .cause().isInstanceOf(NoSuchMethodError.class).hasMessage("simulated broker bug in a passing test");
        Throwable own = failure(results, "failsOnItsOwn(KafkaCluster)");
        assertThat(own).isInstanceOf(AssertionError.class).hasMessage("the order never arrived");
        assertThat(own.getSuppressed()).singleElement(InstanceOfAssertFactories.THROWABLE)
                .hasMessageContaining("internal error during this test")
                .cause().hasMessage("simulated broker bug in a failing test");
    }

    private static Throwable failure(EngineExecutionResults results, String testName) {
        return results.testEvents().failed().stream()
                .filter(e -> e.getTestDescriptor().getDisplayName().equals(testName))
                .map(e -> e.getRequiredPayload(org.junit.platform.engine.TestExecutionResult.class).getThrowable().orElseThrow())
                .findFirst().orElseThrow(() -> new AssertionError(testName + " did not fail"));
    }
}
