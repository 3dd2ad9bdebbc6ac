package dev.samsa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.samsa.event.HighWatermark;
import dev.samsa.event.TimedEvent;
import dev.samsa.event.TopicCreated;
import dev.samsa.time.ClusterClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/** A cluster whose timeline is set small keeps its most recent events, and reading, printing and awaiting still work. */
class TimelineCapacityTest {

    private static final int CAPACITY = 10;

    private static KafkaCluster smallTimeline() {
        return KafkaCluster.builder().timelineCapacity(CAPACITY)
                .clock(ClusterClock.manual(Instant.parse("2026-01-01T00:00:00Z"))).seed(5).start();
    }

    private static boolean topicCreated(TimedEvent e, String topic) {
        return e.event() instanceof TopicCreated created && created.topic().equals(topic);
    }

    @Test
    void keepsTheMostRecentEventsAndPrintsHowManyWentBefore() {
        try (KafkaCluster cluster = smallTimeline()) {
            for (int i = 0; i < 30; i++) {
                cluster.createTopic("topic-" + i, 1, 1);
            }

            List<TimedEvent> events = cluster.events().events();
            assertThat(events).hasSize(CAPACITY);
            assertThat(events).noneMatch(e -> topicCreated(e, "topic-0"));
            assertThat(events.get(events.size() - 1)).matches(e -> topicCreated(e, "topic-29"), "topic-29 created");
            long dropped = cluster.events().dropped();
            assertThat(dropped).isGreaterThanOrEqualTo(30 - CAPACITY);
            assertThat(cluster.events().toString().lines().toList()).hasSize(CAPACITY + 1)
                    .first().isEqualTo("... " + dropped + " earlier events dropped (the timeline keeps the last 10)");
        }
    }

    @Test
    void awaitWakesForANewEventOnAFullTimelineAndGivesUpOnADroppedOne() throws Exception {
        try (KafkaCluster cluster = smallTimeline()) {
            for (int i = 0; i < 30; i++) {
                cluster.createTopic("topic-" + i, 1, 1);
            }

            CompletableFuture<TimedEvent> late = new CompletableFuture<>();
            Thread waiter = new Thread(() -> late.complete(
                    cluster.events().await(e -> topicCreated(e, "late"), Duration.ofSeconds(30))));
            waiter.start();
            // Only once it has scanned the full timeline and sleeps does the event arrive, so await must wake for it.
            await().atMost(Duration.ofSeconds(10)).until(() -> waiter.getState() == Thread.State.TIMED_WAITING);
            cluster.createTopic("late", 1, 1);

            assertThat(late.get()).matches(e -> topicCreated(e, "late"), "late created");
            assertThatThrownBy(() -> cluster.events().await(e -> topicCreated(e, "topic-0"), Duration.ZERO))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(" earlier events dropped");
        }
    }

    @Test
    void highWatermarkMovesStillFoldIntoOneEventOnAFullTimeline() throws Exception {
        try (KafkaCluster cluster = smallTimeline()) {
            for (int i = 0; i < 30; i++) {
                cluster.createTopic("topic-" + i, 1, 1);
            }
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(cluster.producerConfig())) {
                for (int i = 0; i < 3; i++) {
                    producer.send(new ProducerRecord<>("topic-29", "v" + i)).get();
                }
            }

            assertThat(cluster.events().events()).hasSize(CAPACITY).extracting(TimedEvent::event)
                    .filteredOn(e -> e instanceof HighWatermark hw && hw.topic().equals("topic-29") && hw.partition() == 0)
                    .singleElement().isEqualTo(new HighWatermark("topic-29", 0, 3));
        }
    }

    @Test
    void theBuilderRefusesACapacityBelowOne() {
        assertThatThrownBy(() -> KafkaCluster.builder().timelineCapacity(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timelineCapacity(0)");
    }
}
