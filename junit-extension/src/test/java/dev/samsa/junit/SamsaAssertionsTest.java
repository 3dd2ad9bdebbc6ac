package dev.samsa.junit;

import static dev.samsa.junit.SamsaAssertions.assertThat;
import static dev.samsa.junit.SamsaConditions.awaitCluster;
import static dev.samsa.junit.SamsaConditions.groupStable;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.samsa.GroupState;
import dev.samsa.KafkaCluster;
import dev.samsa.event.TopicCreated;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.LongSerializer;
import org.junit.jupiter.api.Test;

/** The AssertJ entry points, against records written by a real producer; failures show the actual state in full. */
@EmbeddedKafkaCluster(brokers = 3)
class SamsaAssertionsTest {

    private static void produce(KafkaCluster cluster, String topic, int partition, String... values) throws Exception {
        try (var producer = new KafkaProducer<String, String>(cluster.producerConfig())) {
            for (int i = 0; i < values.length; i++) {
                producer.send(new ProducerRecord<>(topic, partition, "key-" + i, values[i])).get();
            }
        }
    }

    @Test
    void topicAssertionsReadEveryPartitionFromTheBeginning(KafkaCluster cluster) throws Exception {
        cluster.createTopic("orders", 2, 1);
        produce(cluster, "orders", 1, "paid", "shipped");
        produce(cluster, "orders", 0, "created");

        assertThat(cluster).topic("orders")
                .hasRecordCount(3)
                .containsValues("shipped", "created")
                .containsExactlyValues("created", "paid", "shipped");
        assertThat(cluster).topic("orders").values().startsWith("created");
    }

    @Test
    void aWrongRecordCountShowsEveryPartitionAndRecord(KafkaCluster cluster) throws Exception {
        cluster.createTopic("short", 2, 1);
        produce(cluster, "short", 0, "one", "two");

        assertThatThrownBy(() -> assertThat(cluster).topic("short").hasRecordCount(3))
                .isInstanceOf(AssertionError.class)
                .hasMessage("""
                        Expected topic "short" to have 3 record(s) but it has 2.
                        Actual: topic "short", 2 partition(s), 2 record(s):
                          short-0 offsets [0, 2)
                            offset 0  key="key-0"  value="one"
                            offset 1  key="key-1"  value="two"
                          short-1 offsets [0, 0)""");
    }

    @Test
    void missingValuesAreNamed(KafkaCluster cluster) throws Exception {
        cluster.createTopic("lacking", 1, 1);
        produce(cluster, "lacking", 0, "here");

        assertThatThrownBy(() -> assertThat(cluster).as("after checkout").topic("lacking").containsValues("here", "gone"))
                .hasMessageStartingWith("[after checkout] Expected topic \"lacking\" to contain values [\"here\", \"gone\"]"
                        + " but it lacks [\"gone\"].")
                .hasMessageContaining("value=\"here\"");
    }

    @Test
    void aGivenDeserializerReadsTheValues(KafkaCluster cluster) throws Exception {
        cluster.createTopic("amounts", 1, 1);
        Map<String, Object> config = cluster.producerConfig();
        config.put("value.serializer", LongSerializer.class.getName());
        try (var producer = new KafkaProducer<String, Long>(config)) {
            producer.send(new ProducerRecord<>("amounts", 1200L)).get();
            producer.send(new ProducerRecord<>("amounts", 80L)).get();
        }

        assertThat(cluster).topic("amounts", new LongDeserializer()).hasRecordCount(2).containsExactlyValues(1200L, 80L);
    }

    @Test
    void aTopicThatDoesNotExistFailsWithTheTopicsThatDo(KafkaCluster cluster) {
        cluster.createTopic("present", 1, 1);

        assertThatThrownBy(() -> assertThat(cluster).topic("absent"))
                .hasMessageStartingWith("Expected topic \"absent\" to exist but topic \"absent\" does not exist;")
                .hasMessageContaining("present");
    }

    @Test
    void timelineAssertionsFindEventsAndTheirOrder(KafkaCluster cluster) {
        cluster.createTopic("audited", 1, 1);

        assertThat(cluster).timeline()
                .hasEvent("TopicCreated")
                .hasEvent("TopicCreated", "audited")
                .hasEventsInOrder("ClusterStarted", "BrokerStarted", "TopicCreated")
                .doesNotHaveEvent("TopicDeleted");
        assertThatThrownBy(() -> assertThat(cluster).timeline().hasEventsInOrder("TopicCreated", "ClusterStarted"))
                .hasMessageStartingWith("Expected the cluster timeline to have events [TopicCreated, ClusterStarted] in this"
                        + " order, but after [TopicCreated] no ClusterStarted follows.\nActual timeline:\n")
                .hasMessageContaining("ClusterStarted  seed=")
                .hasMessageContaining("TopicCreated  audited");
    }

    @Test
    void typedTimelineAssertionsReadTheEventsFields(KafkaCluster cluster) {
        cluster.createTopic("typed", 3, 1);

        assertThat(cluster).timeline()
                .hasEvent(TopicCreated.class)
                .hasEvent(TopicCreated.class, e -> e.topic().equals("typed") && e.partitions() == 3)
                .doesNotHaveEvent(TopicCreated.class, e -> e.topic().equals("other"));
        assertThatThrownBy(() -> assertThat(cluster).timeline().hasEvent(TopicCreated.class, e -> e.partitions() == 4))
                .hasMessageStartingWith("Expected the cluster timeline to have an event TopicCreated matching the condition.")
                .hasMessageContaining("TopicCreated  typed");
        assertThatThrownBy(() -> assertThat(cluster).timeline().doesNotHaveEvent(TopicCreated.class, e -> e.partitions() == 3))
                .hasMessageContaining("to have no event TopicCreated matching the condition but found 1");
    }

    @Test
    void partitionAssertionsShowTheWholeReplicationState(KafkaCluster cluster) throws Exception {
        cluster.createTopic("replicated", 1, 3);
        produce(cluster, "replicated", 0, "a", "b");
        awaitCluster().until(SamsaConditions.isrSize(cluster, "replicated", 0, 3));
        int leader = cluster.partition("replicated", 0).leader();

        assertThat(cluster).partition("replicated", 0).hasLeader(leader).hasIsrSize(3).hasIsr(1, 2, 3).hasHighWatermark(2);
        assertThatThrownBy(() -> assertThat(cluster).partition("replicated", 0).hasHighWatermark(5))
                .hasMessageMatching("(?s)Expected partition replicated-0 to have high watermark 5\\.\nActual: replicated-0 "
                        + "leader=\\d leaderEpoch=\\d+ replicas=\\[.*] isr=\\[.*] highWatermark=2");
        assertThatThrownBy(() -> assertThat(cluster).partition("replicated", 9))
                .hasMessageStartingWith("Expected partition replicated-9 to exist");
    }

    @Test
    void groupAssertionsSeeMembersAndCommittedOffsets(KafkaCluster cluster) throws Exception {
        cluster.createTopic("billing-in", 1, 1);
        produce(cluster, "billing-in", 0, "x", "y", "z");
        Map<String, Object> config = cluster.consumerConfig("billing");
        config.put("enable.auto.commit", "false");
        try (var consumer = new KafkaConsumer<String, String>(config)) {
            consumer.subscribe(List.of("billing-in"));
            int read = 0;
            while (read < 3) {
                read += consumer.poll(Duration.ofMillis(100)).count();
            }
            consumer.commitSync();
            awaitCluster().until(groupStable(cluster, "billing"));

            assertThat(cluster).group("billing").isStable().hasMemberCount(1)
                    .hasCommittedOffset("billing-in", 0, 3).hasLag("billing-in", 0, 0);
            assertThatThrownBy(() -> assertThat(cluster).group("billing").isInState(GroupState.EMPTY))
                    .hasMessageStartingWith("Expected group \"billing\" to be Empty.\nActual: ConsumerGroup[billing classic Stable");
        }
    }
}
