package dev.samsa.replication;

import static dev.samsa.replication.ScenarioSupport.awaitHighWatermark;
import static dev.samsa.replication.ScenarioSupport.producer;
import static dev.samsa.replication.ScenarioSupport.readAll;
import static dev.samsa.replication.ScenarioSupport.sendAcknowledged;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.samsa.Api;
import dev.samsa.KafkaCluster;
import dev.samsa.KafkaError;
import dev.samsa.PartitionView;
import dev.samsa.event.Truncated;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * A broker that stops leading a partition answers what is parked on it there at once, NOT_LEADER_OR_FOLLOWER, as
 * Kafka's {@code ReplicaManager.completeDelayedOperationsWhenNotPartitionLeader} does: here, a stale leader (cut off
 * from the other brokers, see {@link StaleLeaderTest}) that heals with an acks=all produce parked on it.
 */
class LeadershipLossTest {

    @Test
    void aProduceParkedOnAStaleLeaderIsAcknowledgedByTheNewLeaderAtTheHealNotAtItsRequestTimeout() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(30).topic("orders", 1, 3).start();
             KafkaProducer<String, String> producer = producer(cluster, "all", Map.of("metadata.max.age.ms", "300000",
                     "request.timeout.ms", "30000", "delivery.timeout.ms", "120000"))) {
            PartitionView partition = cluster.partition("orders", 0);
            assertThat(sendAcknowledged(producer, "orders", "before", 0, 1)).hasSize(1);
            awaitHighWatermark(cluster, "orders", 1);
            int stale = partition.leader();
            cluster.broker(stale).isolateFromBrokers();

            Future<RecordMetadata> parked = producer.send(new ProducerRecord<>("orders", 0, "k", "parked"));
            // The stale leader appends it and waits for followers that can never reach it.
            await().atMost(Duration.ofSeconds(10)).until(() -> partition.logEndOffset(stale) == 2);

            cluster.broker(stale).heal();
            // Answered NOT_LEADER_OR_FOLLOWER at the heal, the producer retries on the new leader at once; before, it
            // heard nothing until its request.timeout.ms (30 s). 10 s tells the two apart on a busy machine too.
            RecordMetadata acknowledged = parked.get(10, TimeUnit.SECONDS);
            assertThat(acknowledged.offset()).isEqualTo(1);
            assertThat(partition.leader()).isNotEqualTo(stale);
            cluster.events().await(Truncated.class, t -> t.brokerId() == stale,
                    Duration.ofSeconds(10));
            assertThat(readAll(cluster, "orders")).containsExactly("before-0", "parked");
        }
    }

    @Test
    void aConsumerFetchParkedOnAStaleLeaderIsAnsweredAtTheHealAndReadsFromTheNewLeaderNotAfterItsMaxWait() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(30).topic("orders", 1, 3).start();
             KafkaProducer<String, String> producer = producer(cluster, "all", Map.of())) {
            PartitionView partition = cluster.partition("orders", 0);
            assertThat(sendAcknowledged(producer, "orders", "before", 0, 1)).hasSize(1);
            awaitHighWatermark(cluster, "orders", 1);
            int stale = partition.leader();
            Map<String, Object> config = cluster.consumerConfig(null);
            config.put("fetch.max.wait.ms", "30000");
            config.put("metadata.max.age.ms", "300000");
            KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config);
            try {
                TopicPartition tp = new TopicPartition("orders", 0);
                consumer.assign(List.of(tp));
                consumer.seek(tp, 1);
                // Its fetch at the end of the log is parked on the leader, for up to 30 s.
                consumer.poll(Duration.ofMillis(200));
                cluster.broker(stale).isolateFromBrokers();
                int leader = partition.leader();
                // A producer that asks the new leader for metadata writes there, not on the stale one.
                try (KafkaProducer<String, String> direct = producer(cluster, "all",
                        Map.of("bootstrap.servers", cluster.broker(leader).address()))) {
                    assertThat(sendAcknowledged(direct, "orders", "after", 0, 1)).as("written on the new leader").hasSize(1);
                }

                cluster.broker(stale).heal();
                List<String> read = new ArrayList<>();
                // Its parked fetch is answered at the heal, not after fetch.max.wait.ms (30 s).
                await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(1)).until(() -> {
                    consumer.poll(Duration.ofMillis(20)).forEach(r -> read.add(r.value()));
                    return !read.isEmpty();
                });
                assertThat(read).containsExactly("after-0");
            } finally {
                // Its next fetch is parked for up to 30 s; closing need not wait for it.
                consumer.close(Duration.ZERO);
            }
        }
    }

    /**
     * The interleaving that stalled a partition in a seeded fault schedule, made deterministic. An idempotent producer
     * sends its first batch of a partition (sequence 0) to a stale leader, where it is parked. The producer then learns
     * the new leader from a broker with nothing in flight (any refresh: here one asked for by an error on another
     * partition; leastLoadedNode prefers such a broker), and sends its next batches there, since a batch without a sequence yet is not held back by one in flight. The
     * new leader has never seen this producer, and Kafka's ProducerAppendInfo accepts any first sequence from an
     * unknown producer: sequences 1..5 are written and acknowledged. When the stale leader heals, sequence 0 comes back
     * NOT_LEADER_OR_FOLLOWER and is retried on the new leader, which answers OUT_OF_ORDER_SEQUENCE_NUMBER (its last
     * sequence is 5); the Java producer retries that error for a batch that is not the next after the last acknowledged,
     * until delivery.timeout.ms expires it (120 s by default, hence a flush() that hung). Then it bumps its epoch and
     * goes on. Real Kafka does the same: the record is lost to the producer with a TimeoutException, never written.
     */
    @Test
    void theFirstBatchParkedOnAStaleLeaderExpiresWhileLaterOnesAreAcknowledgedByTheNewLeaderAsInKafka() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(31).topic("orders", 3, 3).start();
             KafkaProducer<String, String> producer = producer(cluster, "all", Map.of("max.in.flight.requests.per.connection", "5",
                     "metadata.max.age.ms", "300000", "request.timeout.ms", "4000", "delivery.timeout.ms", "5000"))) {
            PartitionView partition = cluster.partition("orders", 0);
            int stale = partition.leader();
            // Connections to the other brokers, so that the producer can ask them for metadata later.
            for (int p = 1; p < 3; p++) {
                assertThat(cluster.partition("orders", p).leader()).isNotEqualTo(stale);
                producer.send(new ProducerRecord<>("orders", p, "k", "warm-up")).get();
            }
            cluster.broker(stale).isolateFromBrokers();
            int leader = partition.leader();

            Future<RecordMetadata> first = producer.send(new ProducerRecord<>("orders", 0, "k", "first"));
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(partition.logEndOffset(stale))
                    .as("parked on the stale leader %d\n%s", stale, cluster.events()).isEqualTo(1));
            // Any metadata refresh now teaches the producer the new leader; an error on another partition asks for
            // one, from a broker with nothing in flight (the stale one has the parked batch).
            cluster.faults().failNext(Api.PRODUCE, KafkaError.NOT_LEADER_OR_FOLLOWER, 1);
            producer.send(new ProducerRecord<>("orders", 1, "k", "warm-up")).get();
            await().atMost(Duration.ofSeconds(10)).until(() -> producer.partitionsFor("orders").get(0).leader().id() == leader);
            List<String> later = sendAcknowledged(producer, "orders", "later", 0, 5);
            assertThat(later).as("sequences 1..5, accepted from a producer the new leader has not seen").hasSize(5);
            assertThat(first).isNotDone();

            cluster.broker(stale).heal();
            assertThatThrownBy(first::get).isInstanceOf(ExecutionException.class).cause()
                    .isInstanceOf(TimeoutException.class).hasMessageContaining("since batch creation");
            Truncated truncation = cluster.events().await(Truncated.class, t -> t.brokerId() == stale, Duration.ofSeconds(10));
            assertThat(truncation.records()).isEqualTo(1);

            List<String> after = sendAcknowledged(producer, "orders", "after", 0, 2);
            assertThat(after).as("with a bumped epoch the producer goes on").hasSize(2);
            List<String> expected = new ArrayList<>(later);
            expected.addAll(after);
            assertThat(readAll(cluster, "orders")).containsExactlyElementsOf(expected);
        }
    }
}
