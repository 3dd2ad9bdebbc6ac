package dev.samsa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsRequestData.CreatePartitionsTopic;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.CreatePartitionsRequest;
import org.apache.kafka.common.requests.CreatePartitionsResponse;
import org.apache.kafka.common.requests.CreateTopicsResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The reproducers of a wire-protocol fuzzer, each sent as its frame on a fresh connection to a 3-broker cluster and
 * answered as Kafka answers it. A real producer on its own connections keeps producing before and after every case,
 * no thread of the JVM dies of an uncaught exception, and the cluster records no internal error unless the case
 * provokes one on purpose.
 */
class HostileInputTest {

    private static final String CANARY = "hostile-canary";
    private static final List<String> UNCAUGHT = new CopyOnWriteArrayList<>();

    private static Thread.UncaughtExceptionHandler previousHandler;
    private static KafkaCluster cluster;
    private static KafkaProducer<String, String> canary;
    private static long lastCanaryOffset = -1;
    private static int expectedInternalErrors;

    @BeforeAll
    static void start() {
        previousHandler = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler((thread, e) -> UNCAUGHT.add(thread.getName() + ": " + e));
        cluster = KafkaCluster.builder().brokers(3).seed(18).topic(CANARY, 1, 3).start();
        canary = new KafkaProducer<>(cluster.producerConfig());
    }

    @AfterAll
    static void stop() {
        try {
            if (canary != null) {
                canary.close(Duration.ofSeconds(10));
            }
            if (cluster != null) {
                cluster.close();
            }
            assertThat(UNCAUGHT).as("uncaught exceptions in any thread").isEmpty();
        } finally {
            Thread.setDefaultUncaughtExceptionHandler(previousHandler);
        }
    }

    @BeforeEach
    @AfterEach
    void theCanaryProducerStillWorksAndNothingFailedInside() throws Exception {
        long offset = canary.send(new ProducerRecord<>(CANARY, "still alive")).get().offset();
        assertThat(offset).isGreaterThan(lastCanaryOffset);
        lastCanaryOffset = offset;
        assertThat(cluster.internalErrors()).as("internal errors").hasSize(expectedInternalErrors);
    }

    /** B1: 2^31-1 partitions is refused in milliseconds, before any replica is placed. */
    @Test
    void createTopicsWithTwoBillionPartitionsIsAPolicyViolation() throws Exception {
        CreateTopicsResponse response = sendHex(1,
                "00130002000010920008667a2d726570726f000000010007667a2d687567657fffffff000100000000000000000000138800");
        CreatableTopicResult result = response.data().topics().find("fz-huge");
        assertThat(result.errorCode()).isEqualTo(Errors.POLICY_VIOLATION.code());
        assertThat(result.errorMessage()).isEqualTo("Excessively large number of partitions per request.");
        assertThat(topicNames()).doesNotContain("fz-huge");
    }

    @Test
    void createPartitionsBeyondTenThousandIsAPolicyViolation() throws Exception {
        cluster.createTopic("grow-me", 1, 1);
        CreatePartitionsRequestData data = new CreatePartitionsRequestData().setTimeoutMs(5_000);
        data.topics().add(new CreatePartitionsTopic().setName("grow-me").setCount(10_002));
        try (RawConnection connection = RawConnection.connect(cluster.broker(1))) {
            CreatePartitionsResponse response = connection.send(new CreatePartitionsRequest.Builder(data).build((short) 3));
            assertThat(response.data().results()).singleElement().satisfies(r -> {
                assertThat(r.errorCode()).isEqualTo(Errors.POLICY_VIOLATION.code());
                assertThat(r.errorMessage()).isEqualTo("Excessively large number of partitions per request.");
            });
        }
    }

    private static java.util.Set<String> topicNames() throws Exception {
        try (org.apache.kafka.clients.admin.Admin admin = org.apache.kafka.clients.admin.Admin.create(cluster.adminConfig())) {
            return admin.listTopics().names().get();
        }
    }

    /** Sends one frame given as hex (no size prefix) to broker {@code brokerId} and reads the answer. */
    private static <T extends AbstractResponse> T sendHex(int brokerId, String hex) throws IOException {
        byte[] frame = HexFormat.of().parseHex(hex);
        RequestHeader header = RequestHeader.parse(ByteBuffer.wrap(frame));
        try (RawConnection connection = RawConnection.connect(cluster.broker(brokerId))) {
            connection.writeFrame(ByteBuffer.wrap(frame));
            return connection.receive(header);
        }
    }

    static ConditionFactory awaiting() {
        return await().atMost(Duration.ofSeconds(10)).dontCatchUncaughtExceptions();
    }
}
