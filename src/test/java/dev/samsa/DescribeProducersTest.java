package dev.samsa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeProducersOptions;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.junit.jupiter.api.Test;

/** Admin.describeProducers against the producer state of each replica, with the answers Kafka gives. */
class DescribeProducersTest {

    private static final TopicPartition AUDIT = new TopicPartition("audit", 0);

    @Test
    void shouldDescribeAnIdempotentProducerOnTheLeaderAndOnAFollowerAndRefuseABrokerWithoutAReplica() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(5).start()) {
            cluster.createTopic(AUDIT.topic(), 1, 2);
            Map<String, Object> config = cluster.producerConfig();
            config.put("enable.idempotence", "true");
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
                for (int i = 0; i < 3; i++) {
                    producer.send(new ProducerRecord<>(AUDIT.topic(), 0, null, "v" + i)).get();
                }
            }
            PartitionView partition = cluster.partition(AUDIT.topic(), 0);
            int follower = partition.replicas().stream().filter(r -> r != partition.leader()).findFirst().orElseThrow();
            int outsider = List.of(1, 2, 3).stream().filter(b -> !partition.replicas().contains(b)).findFirst().orElseThrow();

            List<ProducerState> onLeader = describe(cluster, new DescribeProducersOptions());
            assertThat(onLeader).hasSize(1);
            ProducerState state = onLeader.get(0);
            assertThat(state.producerId()).isNotNegative();
            assertThat(state.producerEpoch()).isZero();
            assertThat(state.lastSequence()).isEqualTo(2);
            assertThat(state.lastTimestamp()).isPositive();
            assertThat(state.coordinatorEpoch()).isEqualTo(OptionalInt.empty());
            assertThat(state.currentTransactionStartOffset()).isEqualTo(OptionalLong.empty());

            await().atMost(Duration.ofSeconds(10)).until(() -> partition.logEndOffset(follower) == 3);
            assertThat(describe(cluster, new DescribeProducersOptions().brokerId(follower)))
                    .as("a follower answers from its own replica, as Kafka's").containsExactly(state);

            assertThatThrownBy(() -> describe(cluster, new DescribeProducersOptions().brokerId(outsider)))
                    .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(NotLeaderOrFollowerException.class);
        }
    }

    /**
     * A fresh Admin each time: kafka-clients 4.1 caches partition leaders across calls, and a cached leader wins over
     * {@link DescribeProducersOptions#brokerId}.
     */
    private static List<ProducerState> describe(KafkaCluster cluster, DescribeProducersOptions options) throws Exception {
        try (Admin admin = Admin.create(cluster.adminConfig())) {
            return admin.describeProducers(List.of(AUDIT), options).partitionResult(AUDIT).get().activeProducers();
        }
    }
}
