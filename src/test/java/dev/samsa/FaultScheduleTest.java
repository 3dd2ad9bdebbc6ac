package dev.samsa;

import static org.assertj.core.api.Assertions.assertThat;

import dev.samsa.time.ClusterClock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.Test;

/**
 * Seeded fault schedules: the same seed gives the same schedule and, replayed on a manual clock, the same timeline;
 * under one, an idempotent acks=all producer on RF=3, min.insync.replicas=2 loses and duplicates nothing.
 *
 * <p>The long run is not part of the suite: {@code mvn -o test -Dtest=FaultScheduleTest -Dsamsa.schedules=1000}.
 */
class FaultScheduleTest {

    private static final int SCHEDULES = Integer.getInteger("samsa.schedules", 20);
    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

    private static FaultSchedule schedule(long seed) {
        return FaultSchedule.seeded(seed).brokers(3).length(Duration.ofSeconds(3))
                .gap(Duration.ofMillis(50), Duration.ofMillis(300)).duration(Duration.ofMillis(100), Duration.ofMillis(800))
                .build();
    }

    private static KafkaCluster cluster(long seed) {
        return KafkaCluster.builder().brokers(3).seed(seed).clock(ClusterClock.manual(START))
                .brokerConfig("replica.lag.time.max.ms", "300")
                .topic("orders", 2, 3, Map.of("min.insync.replicas", "2")).start();
    }

    @Test
    void theSameSeedGivesTheSameScheduleAndAnotherSeedAnother() {
        assertThat(schedule(7).steps()).isEqualTo(schedule(7).steps()).isNotEqualTo(schedule(8).steps()).isNotEmpty();
        assertThat(schedule(7).toString()).startsWith("fault schedule seed=7").contains("broker");
        assertThat(schedule(7).steps()).allSatisfy(s -> assertThat(s.atMs() + s.durationMs()).isLessThanOrEqualTo(3000));
    }

    @Test
    void aScheduleReplayedByItsSeedOnAManualClockGivesTheSameTimeline() {
        assertThat(runWithoutClients(11)).isEqualTo(runWithoutClients(11));
    }

    private static String runWithoutClients(long seed) {
        try (KafkaCluster cluster = cluster(seed); FaultSchedule.Run run = schedule(seed).start(cluster)) {
            while (!run.finished()) {
                cluster.clock().advance(Duration.ofMillis(50));
            }
            return cluster.events().toString();
        }
    }

    @Test
    void idempotentAcksAllWritesSurviveEverySchedule() throws Exception {
        long started = System.nanoTime();
        for (long seed = 1; seed <= SCHEDULES; seed++) {
            try (KafkaCluster cluster = cluster(seed)) {
                Map<String, Object> config = cluster.producerConfig();
                config.put("acks", "all");
                config.put("enable.idempotence", "true");
                config.put("retry.backoff.ms", "10");
                try (KafkaProducer<String, String> producer = new KafkaProducer<>(config);
                     FaultSchedule.Run run = schedule(seed).start(cluster)) {
                    int n = 0;
                    while (!run.finished()) {
                        Future<RecordMetadata> ack = producer.send(new ProducerRecord<>("orders", n % 2, "k", "r" + n++));
                        // Cluster time moves on while the producer waits out a fault in wall time.
                        while (!awaited(ack)) {
                            cluster.clock().advance(Duration.ofMillis(20));
                        }
                        cluster.clock().advance(Duration.ofMillis(20));
                    }
                }
                History history = cluster.history();
                assertThat(history.lostRecords()).as("seed %d: %s\n%s", seed, history, cluster.events()).isZero();
                assertThat(history.duplicates()).as("seed %d: %s", seed, history).isEmpty();
                assertThat(history.acknowledgedBatches()).isPositive();
            }
        }
        System.out.printf("%d schedules, %d ms each%n", SCHEDULES,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started) / SCHEDULES);
    }

    private static boolean awaited(Future<RecordMetadata> ack) throws Exception {
        try {
            ack.get(5, TimeUnit.MILLISECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        }
    }
}
