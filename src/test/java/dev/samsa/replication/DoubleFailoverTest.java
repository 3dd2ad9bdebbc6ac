package dev.samsa.replication;

import static dev.samsa.replication.ScenarioSupport.awaitHighWatermark;
import static dev.samsa.replication.ScenarioSupport.producer;
import static dev.samsa.replication.ScenarioSupport.readAll;
import static dev.samsa.replication.ScenarioSupport.sendAcknowledged;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.samsa.KafkaCluster;
import dev.samsa.PartitionView;
import dev.samsa.event.Truncated;
import dev.samsa.time.ClusterClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.Test;

/**
 * Two leader changes in a row, with a follower that holds a tail of the first leader's epoch the second leader never
 * had. The leader must not count that tail as replication of its own records (it knows a follower only from the
 * follower's fetches in its epoch), and whoever holds the other tail must truncate it (KIP-279), so that replicas never
 * fork. On three brokers with replicas {@code a, l, b} in replica order: {@code a} leads first, {@code l} is elected
 * when {@code a} crashes, {@code b} when {@code l} does. The manual clock never moves, so nobody leaves the ISR for lag.
 */
class DoubleFailoverTest {

    private static final int K = 10;

    private static KafkaCluster.Builder cluster(String topic) {
        return KafkaCluster.builder().brokers(3).seed(21).clock(ClusterClock.manual(Instant.parse("2026-01-01T00:00:00Z")))
                .topic(topic, 1, 3);
    }

    /** Five records everywhere, then {@code K} more that only {@code a} and {@code b} hold, in epoch 0. */
    private static void writeATailThatTheNextLeaderMisses(KafkaCluster cluster, String topic, int l, int b) {
        try (KafkaProducer<String, String> producer = producer(cluster, "1", Map.of())) {
            assertThat(sendAcknowledged(producer, topic, "before", 0, 5)).hasSize(5);
            awaitHighWatermark(cluster, topic, 5);
            cluster.faults().pauseReplication(topic, 0, l);
            assertThat(sendAcknowledged(producer, topic, "old", 0, K)).hasSize(K);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> cluster.partition(topic, 0).logEndOffset(b) == 5 + K);
    }

    @Test
    void acksAllIsNotAcknowledgedThroughAPausedFollowersStaleTailAndNothingAcknowledgedIsLost() {
        try (KafkaCluster cluster = cluster("ledger").brokerConfig("min.insync.replicas", "2").start()) {
            PartitionView partition = cluster.partition("ledger", 0);
            List<Integer> replicas = partition.replicas();
            int a = replicas.get(0);
            int l = replicas.get(1);
            int b = replicas.get(2);
            assertThat(partition.leader()).isEqualTo(a);
            writeATailThatTheNextLeaderMisses(cluster, "ledger", l, b);

            cluster.faults().pauseReplication("ledger", 0, b);
            cluster.broker(a).crash();
            assertThat(partition.leader()).isEqualTo(l);
            assertThat(partition.isr()).containsExactlyInAnyOrder(l, b);
            cluster.faults().resumeReplication("ledger", 0, l);

            try (KafkaProducer<String, String> producer = producer(cluster, "all", Map.of("enable.idempotence", "false",
                    "retries", "0", "request.timeout.ms", "30000", "delivery.timeout.ms", "60000"))) {
                List<Future<RecordMetadata>> sends = new ArrayList<>();
                for (int i = 0; i < K; i++) {
                    sends.add(producer.send(new ProducerRecord<>("ledger", 0, "k", "new-" + i)));
                }
                await().atMost(Duration.ofSeconds(10)).until(() -> partition.logEndOffset(l) == 5 + K);
                // b's log also ends at 15, with a's records: the leader has heard nothing from b in its epoch.
                assertThat(partition.logEndOffset(b)).isEqualTo(5 + K);
                assertThat(partition.highWatermark()).as("only l holds the new records").isEqualTo(5);
                assertThat(partition.isr()).containsExactlyInAnyOrder(l, b);
                assertThat(sends).as("acknowledged with one live replica holding them").noneMatch(Future::isDone);

                cluster.faults().resumeReplication("ledger", 0, b);
                for (Future<RecordMetadata> send : sends) {
                    assertThat(send.get(10, TimeUnit.SECONDS).hasOffset()).isTrue();
                }
            } catch (Exception e) {
                throw new AssertionError(e);
            }
            Truncated truncation = cluster.events().await(Truncated.class, t -> t.brokerId() == b, Duration.ofSeconds(10));
            assertThat(truncation.records()).isEqualTo(K);
            assertThat(partition.batches(b)).isEqualTo(partition.batches(l));

            cluster.broker(l).crash();
            assertThat(partition.leader()).isEqualTo(b);
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                expected.add("before-" + i);
            }
            for (int i = 0; i < K; i++) {
                expected.add("new-" + i);
            }
            assertThat(readAll(cluster, "ledger")).as("every acknowledged acks=all record, on the next leader")
                    .containsExactlyElementsOf(expected);
        }
    }

    @Test
    void afterADoubleFailoverTheReplicaWithTheOtherEpochsTailTruncatesItAndAllReplicasAgree() {
        try (KafkaCluster cluster = cluster("events").start()) {
            PartitionView partition = cluster.partition("events", 0);
            List<Integer> replicas = partition.replicas();
            int a = replicas.get(0);
            int l = replicas.get(1);
            int b = replicas.get(2);
            writeATailThatTheNextLeaderMisses(cluster, "events", l, b);

            cluster.faults().pauseReplication("events", 0, b);
            cluster.broker(a).crash();
            assertThat(partition.leader()).isEqualTo(l);
            cluster.faults().resumeReplication("events", 0, l);
            try (KafkaProducer<String, String> producer = producer(cluster, "1", Map.of())) {
                assertThat(sendAcknowledged(producer, "events", "new", 0, K)).as("acks=1: l alone").hasSize(K);
            }
            assertThat(partition.highWatermark()).as("b has not fetched in l's epoch").isEqualTo(5);

            // l crashes with its epoch-1 tail; b, still in the ISR, leads with its epoch-0 tail.
            cluster.broker(l).crash();
            assertThat(partition.leader()).isEqualTo(b);
            cluster.faults().resumeReplication("events", 0, b);
            cluster.broker(a).restart();
            cluster.broker(l).restart();
            await().atMost(Duration.ofSeconds(10)).until(() -> partition.isr().size() == 3);
            awaitHighWatermark(cluster, "events", 5 + K);

            Truncated truncation = cluster.events().await(Truncated.class, t -> t.brokerId() == l, Duration.ofSeconds(10));
            assertThat(truncation).extracting(Truncated::fromOffset, Truncated::toOffset, Truncated::records).containsExactly(15L, 5L, (long) K);
            assertThat(partition.batches(l)).as("l").isEqualTo(partition.batches(b));
            assertThat(partition.batches(a)).as("a").isEqualTo(partition.batches(b));
            List<String> read = readAll(cluster, "events");
            assertThat(read).hasSize(5 + K).noneMatch(v -> v.startsWith("new-"));
        }
    }
}
